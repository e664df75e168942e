/**
 * @module
 * Inside this repository, `gatehouse-workers` and its subpaths resolve to the
 * TypeScript sources, not to the built `dist/` that the package's `exports`
 * name (what users install). One table for every Vitest project; tsconfig.json
 * (`paths`) and the wrangler configs (`[alias]`) say the same, and a test
 * (test/layers/aliases.test.ts) keeps the three in step with package.json.
 */
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

/** Package subpath → source file, relative to the repository root. */
export const SOURCE_ENTRIES: Readonly<Record<string, string>> = {
  ".": "client-sdk/index.ts",
  "./bindings": "client-sdk/entries/bindings.ts",
  "./rate-limit": "client-sdk/entries/rate-limit.ts",
  "./html": "client-sdk/entries/html.ts",
  "./versioned-kv": "client-sdk/entries/versioned-kv.ts",
  "./security-headers": "client-sdk/entries/security-headers.ts",
  "./client": "client-sdk/entries/client.ts",
  "./connections": "client-sdk/entries/connections.ts",
  "./auth": "workers/auth/index.ts",
  "./worker": "workers/auth/factory/index.ts",
  "./durable-objects": "durable-objects/index.ts",
  "./hyperdrive": "client-sdk/bindings/hyperdrive/postgres/index.ts",
  "./containers": "durable-objects/container/index.ts",
  "./testing": "workers/entries/testing.ts",
};

export const PACKAGE_NAME = "gatehouse-workers";

/** Vite `resolve.alias` entries: exact specifiers only (`gatehouse-workers` never swallows `/auth`). */
export const sourceAliases = Object.entries(SOURCE_ENTRIES).map(([subpath, file]) => ({
  find: new RegExp(`^${PACKAGE_NAME}${subpath.slice(1).replace("/", "\\/")}$`),
  replacement: resolve(ROOT, file),
}));
