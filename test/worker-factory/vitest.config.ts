import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { identityVariables } from "../../scripts/local-idp/identity-env.ts";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/**
 * The worker-factory project: `createAuthWorker` as a team uses it (worker.ts), in workerd, signing
 * in through the local identity provider (scripts/local-idp, started by globalSetup) with the real
 * WorkOS SDK.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => {
      const idp = ctx.inject("localIdp");
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            ...identityVariables(idp),
          },
        },
      };
    }),
  ],
  test: {
    name: "worker-factory",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    globalSetup: ["../../scripts/local-idp/vitest-setup.ts"],
  },
});
