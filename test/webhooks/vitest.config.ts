import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { identityVariables } from "../../scripts/local-idp/identity-env.ts";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

/**
 * Provider webhooks in workerd: the auth worker's POST /webhooks/identity with real signatures.
 * test/node/webhooks-setup.ts starts the local identity provider with webhooks on (Node side);
 * its address reaches the worker as the IDENTITY_API_* bindings (organization look-ups, logins).
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => {
      const idp = ctx.inject("webhookIdp");
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            ...identityVariables(idp),
            WEBHOOK_IDP: { url: idp.url, receiverUrl: idp.receiverUrl },
          },
        },
      };
    }),
  ],
  test: {
    name: "webhooks",
    root: here,
    include: ["**/*.test.ts"],
    globalSetup: [resolve(here, "../node/webhooks-setup.ts")],
  },
});
