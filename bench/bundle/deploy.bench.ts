/**
 * bundle.auth_worker_gzip_kb and bundle.consumer_gzip_kb: gzip size of the
 * auth worker (root wrangler.toml, its `[build]` step included) and of the
 * example consumer, bundled exactly as `wrangler deploy` would (`--dry-run`,
 * offline, never deployed). What the auth worker is made of:
 * `node bench/bundle/composition.ts wrangler.toml`.
 */
import { it } from "vitest";
import { record } from "../harness";
import { gzipBundleKb, packagesOf } from "./gzip-bundle";

it("bundle.auth_worker_gzip_kb", async (ctx) => {
  const size = await gzipBundleKb({ config: "wrangler.toml" });
  record(ctx, "bundle.auth_worker_gzip_kb", { value: size.gzipKb, unit: "kB", goal: "< 100" });
  console.log("bundle.auth_worker_gzip_kb", {
    gzipKb: size.gzipKb,
    bytes: size.bytes,
    packages: packagesOf(size.modules),
  });
});

it("bundle.consumer_gzip_kb", async (ctx) => {
  const size = await gzipBundleKb({ config: "workers/example-consumer/wrangler.toml" });
  record(ctx, "bundle.consumer_gzip_kb", { value: size.gzipKb, unit: "kB", goal: "reported" });
  console.log("bundle.consumer_gzip_kb", {
    gzipKb: size.gzipKb,
    bytes: size.bytes,
    packages: packagesOf(size.modules),
  });
});
