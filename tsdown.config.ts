/**
 * The published build: ESM JavaScript + `.d.ts` + source maps in dist/, one
 * file per package subpath (shared code in chunks named without hashes, so the
 * API report in api/ is stable). Dependencies and peers stay external (tsdown
 * reads package.json), so a consumer's wrangler bundles one copy of hono,
 * partyserver and the WorkOS SDK and picks their `workerd` export conditions
 * itself. `cloudflare:*` modules are the runtime's. The CLI is built for Node.
 */
import { defineConfig } from "tsdown";

export default defineConfig([
  {
    entry: {
      index: "client-sdk/index.ts",
      auth: "workers/auth/index.ts",
      "durable-objects": "durable-objects/index.ts",
      worker: "workers/auth/factory/index.ts",
      hyperdrive: "client-sdk/bindings/hyperdrive/postgres/index.ts",
      containers: "durable-objects/container/index.ts",
    },
    format: "esm",
    platform: "neutral",
    target: "es2022",
    outDir: "dist",
    dts: true,
    sourcemap: true,
    hash: false,
    clean: true,
    deps: { neverBundle: [/^cloudflare:/, /^node:/] },
    tsconfig: "tsconfig.build.json",
  },
]);
