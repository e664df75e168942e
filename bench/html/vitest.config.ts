import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

// Runs in workerd with the versioned-kv test config (one local KV namespace, VKV).
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "../../test/versioned-kv/wrangler.toml" } })],
  test: { name: "bench-html", root: import.meta.dirname, include: ["**/*.bench.ts"], testTimeout: 300_000 },
});
