/**
 * sdk.html_only_gzip_kb: gzip size of a worker that imports only
 * `HtmlTransformer` from `gatehouse-workers/html`, installed from the tarball and bundled as a deploy would. Importing the
 * SDK must not pull in the identity SDK, Hono, partyserver or anything unused.
 */
import { inject, it } from "vitest";
import { record } from "../harness";
import { gzipBundleKb, packagesOf } from "./gzip-bundle";

it("sdk.html_only_gzip_kb", async (ctx) => {
  const size = await gzipBundleKb({ dir: inject("bundleFixtures")["html-only"] });
  record(ctx, "sdk.html_only_gzip_kb", { value: size.gzipKb, unit: "kB", goal: "< 10" });
  console.log("sdk.html_only_gzip_kb", { ...size, packages: packagesOf(size.modules) });
});
