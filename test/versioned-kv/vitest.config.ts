import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: { name: "versioned-kv", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
