/**
 * The tarball users install: only the built package (dist/, README, LICENSE, CHANGELOG,
 * package.json), nothing of the repository's tests, benches or scripts, no TypeScript sources;
 * publint --strict and arethetypeswrong (esm-only profile) find nothing to fix.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { node, REPO_ROOT, run, userEnv } from "./support.ts";

const pkg = inject("pkg");

describe("the packed tarball", () => {
  it("ships dist/, README, LICENSE, CHANGELOG and package.json, and nothing else", () => {
    const paths = pkg.files.map((f) => f.path).sort();
    console.log(
      `gatehouse-workers tarball: ${paths.length} files, ${(pkg.size / 1024).toFixed(1)} kB packed, ` +
        `${(pkg.unpackedSize / 1024).toFixed(1)} kB unpacked\n` +
        pkg.files.map((f) => `  ${f.path} (${f.size} B)`).join("\n"),
    );
    const outside = paths.filter(
      (p) => !p.startsWith("dist/") && !["README.md", "LICENSE", "CHANGELOG.md", "package.json"].includes(p),
    );
    expect(outside).toEqual([]);
    for (const top of ["README.md", "LICENSE", "CHANGELOG.md", "package.json", "dist/cli.js"]) {
      expect(paths).toContain(top);
    }
    // Built JavaScript and declarations only: no sources, tests, benches or fixtures.
    expect(paths.filter((p) => /\.(ts|tsx|mts)$/.test(p) && !p.endsWith(".d.ts"))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(test|tests|bench|scripts|fixtures)\//.test(p.replace(/^dist\//, "")))).toEqual(
      [],
    );
  });

  it("has an entry file and declarations for every subpath of exports", async () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      exports: Record<string, string | { types: string; default: string }>;
    };
    const paths = new Set(pkg.files.map((f) => f.path));
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") {
        expect(paths.has(target.replace(/^\.\//, "")), subpath).toBe(true);
        continue;
      }
      expect(paths.has(target.types.replace(/^\.\//, "")), `${subpath} types`).toBe(true);
      expect(paths.has(target.default.replace(/^\.\//, "")), `${subpath} default`).toBe(true);
    }
  });

  it("publishes (npm publish --dry-run): name, version, public access and provenance accepted", async () => {
    // --ignore-scripts: globalSetup built dist/ already, and a second build would swap it under the other tests.
    const ran = await run("npm", ["publish", "--dry-run", "--ignore-scripts", "--json"], {
      cwd: REPO_ROOT,
      env: userEnv(),
    });
    expect(ran.code, ran.output).toBe(0);
    const report = JSON.parse(ran.stdout.slice(ran.stdout.indexOf("{"))) as Record<
      string,
      { id: string; entryCount: number }
    >;
    const published = report["gatehouse-workers"];
    expect(published?.id).toMatch(/^gatehouse-workers@0\.\d+\.\d+$/);
    expect(published?.entryCount).toBe(pkg.files.length);
  });

  it("passes publint --strict", async () => {
    const ran = await node("node_modules/publint/src/cli.js", ["run", pkg.tarball, "--strict"], pkg.work);
    expect(ran.code, ran.output).toBe(0);
    expect(ran.output).not.toMatch(/Errors:|Warnings:|Suggestions:/);
  });

  it("passes arethetypeswrong with the esm-only profile", async () => {
    const ran = await node(
      "node_modules/@arethetypeswrong/cli/dist/index.js",
      [pkg.tarball, "--profile", "esm-only", "--format", "json"],
      pkg.work,
    );
    expect(ran.code, ran.output).toBe(0);
    // The esm-only profile leaves out node10 and require() from CommonJS (an ESM-only package
    // cannot serve them); every other resolution must be clean.
    const report = JSON.parse(ran.stdout) as {
      analysis: { entrypoints: Record<string, unknown>; problems: { resolutionKind?: string }[] };
    };
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(report.analysis.entrypoints).sort()).toEqual(Object.keys(manifest.exports).sort());
    expect(Object.keys(report.analysis.entrypoints)).toEqual(expect.arrayContaining(["./client", "./testing"]));
    const counted = report.analysis.problems.filter((p) => !["node10", "node16-cjs"].includes(p.resolutionKind ?? ""));
    expect(counted).toEqual([]);
  });
});
