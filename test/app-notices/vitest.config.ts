import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

/**
 * App connections, the auth side (issue 31), in workerd: the auth worker with its session objects
 * and one named app whose service binding (wrangler.toml, APP_RECEIVER → entrypoint
 * GatehouseRevocations) reaches the auxiliary worker `app-receiver` (receiver.js), a real RPC
 * receiver the tests read and can tell to fail or to hold its answer.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        workers: [
          {
            name: "app-receiver",
            modules: true,
            scriptPath: resolve(here, "receiver.js"),
            compatibilityDate: "2026-11-01",
          },
        ],
      },
    }),
  ],
  test: { name: "app-notices", root: here, include: ["**/*.test.ts"] },
});
