import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

// The cost bench: the auth worker over counting bindings, signing in through the local identity
// provider (started Node-side by scripts/local-idp/vitest-setup.ts), as it would through WorkOS.
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
    name: "bench-cost",
    root: here,
    include: ["**/*.bench.ts"],
    testTimeout: 600_000,
    globalSetup: [resolve(here, "../../scripts/local-idp/vitest-setup.ts")],
  },
});
