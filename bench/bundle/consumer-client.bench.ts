/**
 * sdk.consumer_client_gzip_kb: gzip size of a worker that imports only `AuthServiceClient` from
 * `gatehouse-workers/client`, installed from the tarball and bundled as a deploy would. It and the
 * consuming worker of the package test must bundle none of the auth worker's runtime: no identity
 * SDK, no partyserver, no session manager or store. The fixture's wrangler config does not minify
 * (wrangler's default); sdk.consumer_client_minified_gzip_kb is the same worker with `--minify`.
 */
import { expect, inject, it } from "vitest";
import { record } from "../harness";
import { gzipBundleKb, packagesOf } from "./gzip-bundle";

const FORBIDDEN_PACKAGES = ["@workos-inc/node", "partyserver", "partysocket", "superjson", "jose"];
const FORBIDDEN_MODULES = /workers\/auth\/(session|identity|rpc|crypto|app)\/|durable-objects\//;
const fixtures = inject("bundleFixtures");

function assertNoAuthRuntime(modules: string[]): void {
  expect(packagesOf(modules).filter((p) => FORBIDDEN_PACKAGES.includes(p))).toEqual([]);
  expect(modules.filter((m) => FORBIDDEN_MODULES.test(m))).toEqual([]);
}

it("sdk.consumer_client_gzip_kb", async (ctx) => {
  const size = await gzipBundleKb({ dir: fixtures["consumer-client"] });
  assertNoAuthRuntime(size.modules);
  const minified = await gzipBundleKb({ dir: fixtures["consumer-client"] }, { minify: true });
  record(ctx, "sdk.consumer_client_gzip_kb", {
    value: size.gzipKb,
    unit: "kB",
    goal: "< 5",
    reason:
      "the fixture is bundled as wrangler does by default, without minify, so doc comments and long names count; minified, the same worker is sdk.consumer_client_minified_gzip_kb. Most of the bundle is the client itself: every argument checked before it crosses the RPC boundary, typed errors, and the coalescer that sends concurrent rate checks as one call.",
  });
  record(ctx, "sdk.consumer_client_minified_gzip_kb", {
    value: minified.gzipKb,
    unit: "kB",
    goal: "reported (the same worker with --minify)",
  });
  console.log("sdk.consumer_client_gzip_kb", {
    ...size,
    minifiedGzipKb: minified.gzipKb,
    packages: packagesOf(size.modules),
  });

  const consumer = await gzipBundleKb({ dir: fixtures.consumer });
  assertNoAuthRuntime(consumer.modules);
  console.log("consuming worker bundle", { gzipKb: consumer.gzipKb, packages: packagesOf(consumer.modules) });
});
