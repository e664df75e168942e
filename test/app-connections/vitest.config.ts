import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/**
 * App connections, the app side (issue 31), in workerd: the fixture app (worker.ts) with its
 * holder objects, the SDK's registry and entrypoint, and the stand-in auth service, all real
 * local bindings of one worker (its service bindings point back at it).
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: { name: "app-connections", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
