import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

// The auth worker with the local identity provider running (organization look-ups go to it, as
// they would go to WorkOS), started Node-side by scripts/local-idp/vitest-setup.ts.
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => {
      const idp = ctx.inject("localIdp");
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            IDENTITY_API_KEY: idp.apiKey,
            IDENTITY_CLIENT_ID: idp.clientId,
            IDENTITY_API_HOSTNAME: idp.hostname,
            IDENTITY_API_PORT: String(idp.port),
            IDENTITY_API_HTTPS: "false",
          },
        },
      };
    }),
  ],
  test: {
    name: "bench-webhooks",
    root: here,
    include: ["**/*.bench.ts"],
    testTimeout: 600_000,
    globalSetup: [resolve(here, "../../scripts/local-idp/vitest-setup.ts")],
  },
});
