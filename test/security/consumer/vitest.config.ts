import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../../tooling/source/aliases.ts";
import { consumerWithAuthWorker } from "../../node/consumer-auth-bundle.ts";

/**
 * The consumer-side security suite (issue 14): the example consumer (wrangler.toml beside this
 * file) in front of the real auth worker, set up exactly as test/consumer's.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest(() => consumerWithAuthWorker("security-consumer", "security-consumer-secret-0123456789-abcdefgh")),
  ],
  test: { name: "security-consumer", root: import.meta.dirname, include: ["*.test.ts"] },
});
