import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;

/**
 * The user's security record (issue 17) in workerd: the auth worker with its session objects,
 * organization objects, a SECURITY_EVENTS queue (consumed by worker.ts) and a signed webhook.
 * Every global `fetch` of the worker under test (the session objects' webhook deliveries) goes to
 * the auxiliary `security-receiver` worker (receiver.js), a real HTTP receiver the tests read and
 * can tell to fail.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        outboundService: "security-receiver",
        workers: [
          {
            name: "security-receiver",
            modules: true,
            scriptPath: resolve(here, "receiver.js"),
            compatibilityDate: "2026-11-01",
          },
        ],
      },
    }),
  ],
  test: { name: "security-record", root: here, include: ["**/*.test.ts"] },
});
