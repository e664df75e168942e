import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/**
 * The security suite (issue 14): each finding of the outside attack replayed against the
 * auth worker in workerd, with real local KV and Durable Objects. Consumer-side attacks live
 * in test/security/consumer (a project of its own: it needs the two-worker setup).
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: {
    name: "security",
    root: import.meta.dirname,
    include: ["*.test.ts"],
    globalSetup: ["../../scripts/local-idp/vitest-setup.ts"],
  },
});
