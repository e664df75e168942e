/**
 * adoption.*: a team's journey from the packed tarball (tooling/package/journey.ts, the same one
 * the package test asserts), timed step by step so its growth shows: the seconds from an empty
 * folder to the app's guarded page (init of both workers, starting them, a sign-in, the page; the
 * installs are this bench's own, installed once by setup.ts, and not counted), the dry-run bundles,
 * and the warning lines a team would read past (goal 0).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, inject, it } from "vitest";
import { teamJourney } from "../../tooling/package/journey.ts";
import { record } from "../harness";

const fixtures = inject("bundleFixtures");

it("adoption.seconds_to_guarded_page", async (ctx) => {
  const work = mkdtempSync(join(tmpdir(), "gatehouse-bench-journey-"));
  try {
    const result = await teamJourney(work, fixtures["auth-worker"]);
    expect(result.pageNamesAda).toBe(true);
    expect(result.afterRevokeStatus).toBe(401);
    const t = result.times;
    const toPage =
      (t.init_auth_ms ?? 0) + (t.init_app_ms ?? 0) + (t.start_ms ?? 0) + (t.sign_in_ms ?? 0) + (t.guarded_page_ms ?? 0);
    record(ctx, "adoption.seconds_to_guarded_page", {
      value: Math.round(toPage / 100) / 10,
      unit: "s",
      goal: "reported",
    });
    record(ctx, "adoption.init_seconds", {
      value: Math.round(((t.init_auth_ms ?? 0) + (t.init_app_ms ?? 0)) / 100) / 10,
      unit: "s",
      goal: "reported",
    });
    record(ctx, "adoption.dry_run_seconds", {
      value: Math.round(((t.dry_run_auth_ms ?? 0) + (t.dry_run_app_ms ?? 0)) / 100) / 10,
      unit: "s",
      goal: "reported",
    });
    record(ctx, "adoption.warning_lines", { value: result.warningLines, unit: "lines", goal: "0" });
    console.log(`adoption (${result.nodeVersion}): ${JSON.stringify(result.times)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
