import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { identityVariables } from "../../scripts/local-idp/identity-env.ts";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/**
 * The security suite (issue 14): each finding of the outside attack replayed against the
 * auth worker in workerd, with real local KV and Durable Objects. Consumer-side attacks live
 * in test/security/consumer (a project of its own: it needs the two-worker setup). The local
 * identity provider's address reaches the worker as IDENTITY_API_* bindings, so its Durable
 * Objects (which refresh provider tokens) talk to it too.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { ...identityVariables(ctx.inject("localIdp")) } },
    })),
  ],
  test: {
    name: "security",
    root: import.meta.dirname,
    include: ["*.test.ts"],
    globalSetup: ["../../scripts/local-idp/vitest-setup.ts"],
  },
});
