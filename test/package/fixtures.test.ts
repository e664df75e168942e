/**
 * The three fixture projects, installed from the tarball with their peers (globalSetup), compile
 * under a strict consumer tsconfig (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess,
 * skipLibCheck: false, only @cloudflare/workers-types for globals) with moduleResolution "bundler"
 * and "nodenext", with TypeScript 7 and 5.9; and `wrangler deploy --dry-run` bundles each without
 * anything Workers cannot run and without postgres.js, containers (neither as a package nor as their
 * code under another name) or, where unused, the WorkOS SDK. Together they import every subpath
 * (issue 28); the consumer's bundle has no WorkOS SDK, partyserver or `node:` module, and its test
 * helpers show that subpaths share module state (`/testing`'s fake is the one `/rate-limit` asks).
 */
import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { LIBRARY_MARKERS, scanBundle } from "./bundle-scan.ts";
import type { FixtureName } from "./support.ts";
import { node, REPO_ROOT, run, TSC, userEnv, WRANGLER } from "./support.ts";

const pkg = inject("pkg");

/** `nodeFree`: the bundle imports no `node:` module at all (and no polyfill of one). */
const fixtures: { name: FixtureName; uses: string[]; never: string[]; nodeFree: boolean }[] = [
  {
    name: "consumer",
    uses: ["hono"],
    never: ["@workos-inc/node", "partyserver", "superjson", "jose", "unenv", "@cloudflare/unenv-preset"],
    nodeFree: true,
  },
  {
    name: "auth-worker",
    uses: ["hono", "@workos-inc/node", "partyserver", "superjson"],
    never: [],
    nodeFree: false,
  },
  { name: "library", uses: ["hono"], never: ["@workos-inc/node", "partyserver"], nodeFree: false },
];
/** Subpaths no fixture imports: their optional peers (postgres, @cloudflare/containers) are not installed. */
const OPTIONAL_PEER_SUBPATHS = ["./containers", "./hyperdrive"];
const ALWAYS_ABSENT = ["postgres", "@cloudflare/containers"];

/** The source map wrangler writes beside a bundle (always, from wrangler 4.150): names the packages of a minified one. */
function readMap(path: string): { sources: string[] } | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as { sources: string[] }) : undefined;
}

describe.each(fixtures)("fixture $name, installed from the tarball", ({ name, uses, never, nodeFree }) => {
  const dir = pkg.fixtures[name];

  it.each(["tsconfig.json", "tsconfig.nodenext.json"])("type-checks with TypeScript 7 (%s)", async (config) => {
    const ran = await node(TSC, ["-p", config], dir);
    expect(ran.code, ran.output).toBe(0);
  });

  it.each(["tsconfig.json", "tsconfig.nodenext.json"])("type-checks with TypeScript 5.9 (%s)", async (config) => {
    const ran = await run(process.execPath, [pkg.tsc5, "-p", config], { cwd: dir, env: userEnv() });
    expect(ran.code, ran.output).toBe(0);
  });

  it("bundles with wrangler deploy --dry-run, with only what it uses", async () => {
    const ran = await node(WRANGLER, ["deploy", "--dry-run", "--outdir", "out"], dir);
    expect(ran.code, ran.output).toBe(0);
    const total = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(ran.output);
    console.log(`fixture ${name}: ${total?.[0] ?? "(no size line)"}`);
    const facts = scanBundle(readFileSync(join(dir, "out/index.js"), "utf8"), readMap(join(dir, "out/index.js.map")));
    expect(facts.forbidden).toEqual([]);
    if (nodeFree) expect(facts.nodeBuiltins).toEqual([]);
    expect(facts.packages.has("gatehouse-workers")).toBe(true);
    for (const p of uses) expect(facts.packages.has(p), `${name} bundles ${p}`).toBe(true);
    for (const p of [...never, ...ALWAYS_ABSENT]) expect(facts.packages.has(p), `${name} bundles ${p}`).toBe(false);
    expect(facts.libraries, `${name} bundles code of`).toEqual([]);
  });
});

describe("the fixtures together", () => {
  it("import every subpath of the package but the optional peers' ones", () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const imported = new Set<string>();
    for (const fixture of ["consumer", "auth-worker", "library"] satisfies FixtureName[]) {
      const src = join(REPO_ROOT, "test/package/fixtures", fixture, "src");
      for (const file of readdirSync(src)) {
        for (const [, subpath] of readFileSync(join(src, file), "utf8").matchAll(
          /from "gatehouse-workers(\/[a-z-]+)?"/g,
        ))
          imported.add(`.${subpath ?? ""}`);
      }
    }
    const wanted = Object.keys(manifest.exports).filter(
      (s) => s !== "./package.json" && !OPTIONAL_PEER_SUBPATHS.includes(s),
    );
    expect([...imported].sort()).toEqual(wanted.sort());
  });
});

describe("the consumer's test helpers (src/testing.ts), from the tarball", () => {
  const dir = pkg.fixtures.consumer;

  it("bundle alone, with one copy of each module of the package", async () => {
    const ran = await node(WRANGLER, ["deploy", "--dry-run", "--outdir", "out-testing", "src/testing.ts"], dir);
    expect(ran.code, ran.output).toBe(0);
    const code = readFileSync(join(dir, "out-testing/testing.js"), "utf8");
    const modules = [...code.matchAll(/^\/\/ node_modules\/gatehouse-workers\/(\S+)$/gm)].map((m) => m[1]!);
    expect(modules).toContain("dist/client-sdk/rate-limit/fake.js");
    expect(modules.filter((m, i) => modules.indexOf(m) !== i)).toEqual([]);
    expect(scanBundle(code).nodeBuiltins).toEqual([]);
  });

  it("run in Node: fakeRateLimiter() of /testing limits both limiters of /rate-limit, which never reach a store", async () => {
    const ran = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const { limitedByTheFake } = await import("./src/testing.ts"); console.log(JSON.stringify(await limitedByTheFake()));',
      ],
      { cwd: dir, env: userEnv() },
    );
    expect(ran.code, ran.output).toBe(0);
    expect(JSON.parse(ran.stdout.trim().split("\n").at(-1)!)).toEqual([429, 429]);
  });
});

describe("the bundle scan itself", () => {
  it("sees packages by wrangler's module comments and catches node:fs and createRequire", () => {
    const facts = scanBundle(
      [
        "// node_modules/postgres/src/index.js",
        "// node_modules/@workos-inc/node/lib/index.js",
        'import { existsSync, readFileSync, symlinkSync } from "node:fs";',
        "const r = createRequire(import.meta.url);",
        'var x = require("fs");',
      ].join("\n"),
    );
    expect([...facts.packages].sort()).toEqual(["@workos-inc/node", "postgres"]);
    expect(facts.forbidden).toHaveLength(3);
    expect(facts.nodeBuiltins).toEqual(["node:fs"]);
    expect(scanBundle('const s = "fsm"; // node_modules/hono/dist/index.js').forbidden).toEqual([]);
    expect(
      scanBundle('import { Buffer } from "node:buffer";\nawait import("node:crypto");\nconst a = "node:x is text";')
        .nodeBuiltins,
    ).toEqual(["node:buffer", "node:crypto"]);
  });

  it("sees a minified bundle's packages by its source map's sources", () => {
    const map = {
      sources: [
        "../node_modules/gatehouse-workers/workers/auth/app/index.ts",
        "../node_modules/@workos-inc/node/node_modules/jose/dist/webapi/index.js",
        "../src/index.ts",
      ],
    };
    expect([...scanBundle("export{};", map).packages].sort()).toEqual(["@workos-inc/node", "gatehouse-workers"]);
  });

  it("knows postgres.js and @cloudflare/containers by strings their code carries (the installed versions)", () => {
    // The modules a Workers bundle takes: postgres.js's `workerd` build, the containers' class.
    const code: Record<string, string> = {
      postgres: "node_modules/postgres/cf/src/connection.js",
      "@cloudflare/containers": "node_modules/@cloudflare/containers/dist/lib/container.js",
    };
    for (const [library, file] of Object.entries(code)) {
      const source = readFileSync(join(REPO_ROOT, file), "utf8");
      for (const marker of LIBRARY_MARKERS[library]!) expect(source, `${library}: ${marker}`).toContain(marker);
      expect(scanBundle(`// src/inlined.js\n${source}`).libraries).toEqual([library]);
    }
    expect(scanBundle("// node_modules/hono/dist/index.js\nexport {};").libraries).toEqual([]);
  });
});

describe("a project written by `npx gatehouse-workers init` from the installed package", () => {
  it("is ready: it type-checks strictly and bundles against the package", async () => {
    const cli = join(pkg.fixtures["auth-worker"], "node_modules/gatehouse-workers/dist/cli.js");
    const project = join(pkg.work, "my-auth");
    const init = await run(process.execPath, [cli, "init", project], { cwd: pkg.work, env: userEnv() });
    expect(init.code, init.output).toBe(0);
    for (const file of ["package.json", "wrangler.jsonc", "src/index.ts", ".dev.vars", "README.md", "tsconfig.json"]) {
      expect(existsSync(join(project, file)), file).toBe(true);
    }
    // The same dependencies `npm install` would bring (the auth-worker fixture has them from the tarball).
    symlinkSync(join(pkg.fixtures["auth-worker"], "node_modules"), join(project, "node_modules"), "dir");
    const tsc = await node(TSC, ["-p", "tsconfig.json"], project);
    expect(tsc.code, tsc.output).toBe(0);
    const bundle = await node(WRANGLER, ["deploy", "--dry-run", "--outdir", "out"], project);
    expect(bundle.code, bundle.output).toBe(0);
    expect(bundle.output).toMatch(/env\.USER_SESSIONS \(UserSessions\)/);
    const facts = scanBundle(
      readFileSync(join(project, "out/index.js"), "utf8"),
      readMap(join(project, "out/index.js.map")),
    );
    expect(facts.forbidden).toEqual([]);
    expect(facts.libraries).toEqual([]);
  });
});
