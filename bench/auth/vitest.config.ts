import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "../../test/auth/wrangler.toml" } })],
  test: { name: "bench-auth", root: import.meta.dirname, include: ["**/*.bench.ts"], testTimeout: 600_000 },
});
