import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: { name: "core", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
