import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

const here = import.meta.dirname;
const reference = resolve(here, "../../test/ssf-reference");

// The cost bench: the auth worker over counting bindings, signing in through the local identity
// provider (started Node-side by scripts/local-idp/vitest-setup.ts), as it would through WorkOS.
// Every global `fetch` of the worker leaves through outbound.js: the identity provider's requests go
// on to it, the shared-signals pushes land in the reference RFC 8935 push endpoint
// (test/ssf-reference/push-receiver.js). Each auxiliary worker's `modulesRoot` is its own folder
// (a module path must not climb out of it).
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest((ctx) => {
      const idp = ctx.inject("localIdp");
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            IDENTITY_API_KEY: idp.apiKey,
            IDENTITY_CLIENT_ID: idp.clientId,
            IDENTITY_API_HOSTNAME: idp.hostname,
            IDENTITY_API_PORT: String(idp.port),
            IDENTITY_API_HTTPS: "false",
          },
          outboundService: "cost-outbound",
          workers: [
            {
              name: "cost-outbound",
              modules: true,
              modulesRoot: here,
              scriptPath: resolve(here, "outbound.js"),
              compatibilityDate: "2026-11-01",
              bindings: { IDENTITY_API_ORIGIN: new URL(idp.url).origin },
              serviceBindings: { PUSH_RECEIVER: "ssf-push-receiver" },
            },
            {
              name: "ssf-push-receiver",
              modules: true,
              modulesRoot: reference,
              scriptPath: resolve(reference, "push-receiver.js"),
              compatibilityDate: "2026-11-01",
            },
          ],
        },
      };
    }),
  ],
  test: {
    name: "bench-cost",
    root: here,
    include: ["**/*.bench.ts"],
    testTimeout: 600_000,
    globalSetup: [resolve(here, "../../scripts/local-idp/vitest-setup.ts")],
  },
});
