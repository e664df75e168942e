/**
 * The public surface is a reviewed diff: api/gatehouse-workers.api.md must equal the report of the
 * declarations globalSetup just built (`npm run api:report` rewrites it after a deliberate change).
 */
import { describe, expect, it } from "vitest";
import { node, REPO_ROOT } from "./support.ts";

describe("the API report", () => {
  it("matches the built declarations", async () => {
    const ran = await node("scripts/api-report.mjs", ["--check"], REPO_ROOT);
    expect(ran.code, ran.output).toBe(0);
  });

  it("names every subpath of the package", async () => {
    const { readFileSync } = await import("node:fs");
    const report = readFileSync(`${REPO_ROOT}/api/gatehouse-workers.api.md`, "utf8");
    for (const entry of ["index", "auth", "durable-objects", "worker", "hyperdrive", "containers"]) {
      expect(report).toContain(`## dist/${entry}.d.ts`);
    }
  });
});
