import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

/**
 * The account project: the auth worker's /account/sessions routes in workerd. The live
 * browser script is rebuilt Node-side first (test/node/account-setup.ts runs the real
 * scripts/build-live-script.mjs into a temporary file) and handed to the tests as a binding.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { ACCOUNT_BUNDLE: ctx.inject("accountBundle") } },
    })),
  ],
  test: {
    name: "account",
    root: here,
    include: ["**/*.test.ts"],
    globalSetup: [resolve(here, "../node/account-setup.ts")],
  },
});
