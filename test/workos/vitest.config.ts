import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { identityVariables } from "../../scripts/local-idp/identity-env.ts";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/**
 * The WorkOS contract suite (issue 26): the real auth worker and its real `DefaultIdentityClient`
 * against WorkOS's own emulator, not against our local provider. Where the emulator cannot do
 * something we rely on, the test says so in its name (and ARCHITECTURE.md lists the gap).
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => {
      const workos = ctx.inject("workos");
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            ...identityVariables(workos),
            IDENTITY_WEBHOOK_SECRET: workos.webhookSecret,
            ADMIN_CONSOLE_ORGANIZATIONS: workos.organizationIds.org_01ACME00000000000000000000!,
          },
        },
      };
    }),
  ],
  test: {
    name: "workos",
    root: import.meta.dirname,
    include: ["*.test.ts"],
    globalSetup: ["../node/workos-setup.ts"],
  },
});
