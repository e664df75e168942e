import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: {
    name: "auth",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    // The local identity provider (scripts/local-idp): the real WorkOS SDK is driven against it.
    globalSetup: ["../../scripts/local-idp/vitest-setup.ts"],
  },
});
