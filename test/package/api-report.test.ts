/**
 * The public surface is a reviewed diff: api/<entry>.api.md, one per subpath of package.json's
 * `exports`, must equal the report of the declarations globalSetup just built (`npm run api:report`
 * rewrites them after a deliberate change). The report follows every name to the declaration
 * behind it, so declarations chunked another way (one shared file, minified internal names, the
 * bundler's `Foo$1` renames) must give the very same reports.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build, type UserConfig } from "tsdown";
import { describe, expect, inject, it } from "vitest";
import { node, REPO_ROOT } from "./support.ts";

const pkg = inject("pkg");
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, string | { types: string; default: string }>;
};
const subpaths = Object.entries(manifest.exports).filter(([, target]) => typeof target !== "string");
const entry = (subpath: string) => (subpath === "." ? "index" : subpath.slice(2));

describe("the API report", () => {
  it("matches the built declarations", async () => {
    const ran = await node("scripts/api-report.mjs", ["--check"], REPO_ROOT);
    expect(ran.code, ran.output).toBe(0);
  });

  it("has one file per subpath of the package, and no other", () => {
    expect(subpaths.length).toBeGreaterThanOrEqual(13);
    for (const [subpath] of subpaths) {
      const file = join(REPO_ROOT, "api", `${entry(subpath)}.api.md`);
      expect(existsSync(file), file).toBe(true);
      expect(readFileSync(file, "utf8")).toMatch(
        new RegExp(
          `^# ${manifest.name}${subpath.slice(1)}: API report\\n[\\s\\S]*\\nexport \\{ [^}]+ \\};\\n\`\`\`\\n$`,
        ),
      );
    }
    expect(readdirSync(join(REPO_ROOT, "api")).sort()).toEqual(
      subpaths.map(([subpath]) => `${entry(subpath)}.api.md`).sort(),
    );
  });

  it("does not change when the declarations are chunked another way", async () => {
    const configs = (await import("../../tsdown.config.ts")).default as UserConfig[];
    const declarations = configs.find((c) => c.dts && typeof c.dts === "object" && c.dts.emitDtsOnly);
    expect(declarations).toBeDefined();
    const out = join(pkg.work, "declarations-one-chunk");
    await build({
      ...declarations,
      config: false,
      cwd: REPO_ROOT,
      outDir: out,
      hash: true,
      logLevel: "warn",
      outputOptions: {
        chunkFileNames: "shared/[name]-[hash].js",
        minifyInternalExports: true,
        codeSplitting: { groups: [{ name: "everything.d", test: /./ }] },
      },
    });
    // Chunked otherwise indeed: one shared file, where names of different declarations clash.
    const shared = readdirSync(join(out, "shared"));
    expect(shared).toHaveLength(1);
    expect(readFileSync(join(out, "shared", shared[0]!), "utf8")).toMatch(/\b\w+\$1\b/);
    const ran = await node("scripts/api-report.mjs", ["--check", "--dist", out], REPO_ROOT);
    expect(ran.code, ran.output).toBe(0);
  });
});
