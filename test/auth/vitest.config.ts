import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";

export default defineProject({
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: {
    name: "auth",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    // The local identity provider (scripts/local-idp): the real WorkOS SDK is driven against it.
    globalSetup: ["../../scripts/local-idp/vitest-setup.ts"],
  },
});
