import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/**
 * The SSF receiver (issue 32) in workerd: `POST /ssf/events` fed SETs built by a reference
 * transmitter written from RFC 8417 / RFC 8935 / CAEP / RISC with `jose` (transmitter.ts), never
 * by Gatehouse's own transmitter code.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
  test: { name: "ssf-receiver", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
