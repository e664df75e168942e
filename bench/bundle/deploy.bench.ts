/**
 * bundle.auth_worker_gzip_kb and bundle.consumer_gzip_kb: gzip size of a team's auth worker made
 * with createAuthWorker and of a consuming worker, both built from the packed tarball (setup.ts)
 * exactly as `wrangler deploy` would (`--dry-run`, offline, never deployed), so tree-shaking is
 * measured on what users get. What a bundle is made of: `node bench/bundle/composition.ts <config>`.
 */
import { inject, it } from "vitest";
import { record } from "../harness";
import { gzipBundleKb, packagesOf } from "./gzip-bundle";

const fixtures = inject("bundleFixtures");

it("bundle.auth_worker_gzip_kb", async (ctx) => {
  const size = await gzipBundleKb({ dir: fixtures["auth-worker"] });
  record(ctx, "bundle.auth_worker_gzip_kb", { value: size.gzipKb, unit: "kB", goal: "< 100" });
  console.log("bundle.auth_worker_gzip_kb", {
    gzipKb: size.gzipKb,
    bytes: size.bytes,
    packages: packagesOf(size.modules),
  });
});

it("bundle.consumer_gzip_kb", async (ctx) => {
  const size = await gzipBundleKb({ dir: fixtures.consumer });
  record(ctx, "bundle.consumer_gzip_kb", { value: size.gzipKb, unit: "kB", goal: "reported" });
  console.log("bundle.consumer_gzip_kb", {
    gzipKb: size.gzipKb,
    bytes: size.bytes,
    packages: packagesOf(size.modules),
  });
});
