import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

/**
 * The SSF receiver (issue 32) following an upstream transmitter's key rotation, in workerd. The
 * transmitter's keys come from its `jwksUri`: every global `fetch` of the worker under test goes to
 * the auxiliary `jwks-host` worker (jwks-host.js), which serves the set the tests publish, fails
 * when told to, and counts what the receiver fetched.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        outboundService: "jwks-host",
        workers: [
          {
            name: "jwks-host",
            modules: true,
            scriptPath: resolve(here, "jwks-host.js"),
            compatibilityDate: "2026-11-01",
          },
        ],
      },
    }),
  ],
  test: { name: "ssf-rotation", root: here, include: ["**/*.test.ts"] },
});
