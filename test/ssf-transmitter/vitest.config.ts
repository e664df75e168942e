import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/**
 * The shared-signals transmitter (issue 32, foundation) in workerd: its metadata, JWKS and signed
 * SETs checked by a reference verifier written from RFC 8417 / SSF 1.0 / CAEP 1.0 with `jose`.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: {
    name: "ssf-transmitter",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
  },
});
