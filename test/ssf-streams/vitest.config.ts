import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

/**
 * Shared-signals streams (issue 32, transmitter) in workerd: the management API driven by the
 * reference receiver client (test/ssf-reference/client.ts, written from SSF 1.0), and every push of
 * the SsfStreams object landing in the reference push endpoint (push-receiver.js, from RFC 8935),
 * an auxiliary worker reached by every global `fetch` of the worker under test.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        outboundService: "ssf-push-receiver",
        workers: [
          {
            name: "ssf-push-receiver",
            modules: true,
            modulesRoot: resolve(here, ".."),
            scriptPath: resolve(here, "../ssf-reference/push-receiver.js"),
            compatibilityDate: "2026-11-01",
          },
        ],
      },
    }),
  ],
  test: { name: "ssf-streams", root: here, include: ["**/*.test.ts"] },
});
