/**
 * The published build, into dist/ (emptied first by `npm run build`):
 * - JavaScript: ESM + source maps, one file per source module (`unbundle`), entries at the top
 *   (`dist/index.js`, `dist/auth.js`, `dist/rate-limit.js`, …; one per subpath of package.json,
 *   the same table as tooling/source/aliases.ts). A consumer's bundler then keeps exactly the
 *   modules it uses (`sideEffects: false`), so a worker that never signs anyone in carries none of
 *   the WorkOS SDK, partyserver or superjson, not even their module-level code. Entries only
 *   re-export, so two subpaths that name one module share one instance of it (and its state: the
 *   active `fakeRateLimiter()`, the objects' clock).
 * - Declarations: one `.d.ts` per subpath, declarations shared by several in dist/chunks/ (one
 *   declaration per class: a class with `#private` declared twice would be two incompatible types).
 *   The API report (scripts/api-report.mjs) follows names into the chunks, so how they are chunked
 *   does not matter to it.
 * Dependencies and peers stay imports (tsdown reads package.json), so a consumer's wrangler bundles
 * one copy of hono, partyserver and the WorkOS SDK and picks their `workerd` export conditions
 * itself. `cloudflare:*` and `node:*` modules are the runtime's.
 * - The CLI: dist/cli.js, one Node ESM file (see the last entry).
 */
import { defineConfig, type UserConfig } from "tsdown";

const shared: UserConfig = {
  entry: {
    index: "client-sdk/index.ts",
    bindings: "client-sdk/entries/bindings.ts",
    "rate-limit": "client-sdk/entries/rate-limit.ts",
    html: "client-sdk/entries/html.ts",
    "versioned-kv": "client-sdk/entries/versioned-kv.ts",
    "security-headers": "client-sdk/entries/security-headers.ts",
    client: "client-sdk/entries/client.ts",
    connections: "client-sdk/entries/connections.ts",
    auth: "workers/auth/index.ts",
    worker: "workers/auth/factory/index.ts",
    "durable-objects": "durable-objects/index.ts",
    hyperdrive: "client-sdk/bindings/hyperdrive/postgres/index.ts",
    containers: "durable-objects/container/index.ts",
    testing: "workers/entries/testing.ts",
  },
  format: "esm",
  platform: "neutral",
  target: "es2022",
  outDir: "dist",
  hash: false,
  clean: false,
  deps: { neverBundle: [/^cloudflare:/, /^node:/] },
  tsconfig: "tsconfig.build.json",
};

export default defineConfig([
  { ...shared, unbundle: true, sourcemap: true, dts: false },
  {
    ...shared,
    dts: { emitDtsOnly: true },
    // Shared declarations in dist/chunks/, so a chunk's name (often "index") never collides with an entry's.
    outputOptions: { chunkFileNames: "chunks/[name].js", minifyInternalExports: false },
  },
  // The command-line tool (`npx gatehouse-workers init | dev-idp | dev`), for Node: one file with the
  // local identity provider inside; `jose` stays a dependency.
  {
    entry: { cli: "scripts/cli/main.ts" },
    format: "esm",
    platform: "node",
    target: "node20",
    outDir: "dist",
    fixedExtension: false,
    hash: false,
    clean: false,
    dts: false,
    sourcemap: false,
    outputOptions: { chunkFileNames: "cli/[name].js" },
    tsconfig: "tsconfig.node.json",
  },
]);
