import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

// The cost bench's counting layer, in workerd against real local bindings.
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: { name: "cost", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
