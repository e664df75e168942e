import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;
const compat = { compatibilityDate: "2026-11-01", compatibilityFlags: ["nodejs_compat"] };

/**
 * The bindings project: wrangler.toml binds every local binding kind; the
 * Hyperdrive origin (a PGlite socket server) and the SQLite reader URL come from
 * test/node/bindings-setup.ts, and the auxiliary workers behind the service
 * bindings are plain JavaScript modules loaded by miniflare.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        hyperdrives: { PG: ctx.inject("bindingsPostgresUrl"), PG_DOWN: ctx.inject("bindingsClosedPostgresUrl") },
        bindings: { SQLITE_READER_URL: ctx.inject("bindingsSqliteReaderUrl") },
        workers: [
          { name: "gatehouse-aux", modules: true, scriptPath: resolve(here, "aux/service.js"), ...compat },
          {
            name: "gatehouse-customer-alpha",
            modules: true,
            scriptPath: resolve(here, "aux/customer.js"),
            bindings: { CUSTOMER: "alpha" },
            ...compat,
          },
          {
            name: "gatehouse-customer-beta",
            modules: true,
            scriptPath: resolve(here, "aux/customer.js"),
            bindings: { CUSTOMER: "beta" },
            ...compat,
          },
        ],
      },
    })),
  ],
  test: {
    name: "bindings",
    root: here,
    include: ["**/*.test.ts"],
    globalSetup: [resolve(here, "../node/bindings-setup.ts")],
  },
});
