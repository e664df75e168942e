/**
 * globalSetup of the package project: builds dist/ and packs the tarball into a temporary folder
 * outside the repository, then, in parallel, installs it (not a link) with its peers from the
 * registry into a copy of each fixture project, and TypeScript 5.9 into a tools folder, to check
 * the declarations with the compiler most users run too. The tests read where everything is with
 * `inject("pkg")`. The folder is removed at teardown (kept with GATEHOUSE_PACKAGE_KEEP=1).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import {
  buildAndPack,
  installFixture,
  must,
  NPM_INSTALL_FLAGS,
  type PackedFile,
  run,
  userEnv,
} from "../../tooling/package/index.ts";
import { FIXTURES, type FixtureName, REPO_ROOT } from "./support.ts";

export interface ProvidedPackage {
  /** The temporary folder outside the repository. */
  work: string;
  tarball: string;
  /** `npm pack --json`: the file list and sizes. */
  files: PackedFile[];
  size: number;
  unpackedSize: number;
  /** Fixture name → its installed copy. */
  fixtures: Record<FixtureName, string>;
  /** tsc of TypeScript 5.9 (the repository's own is 7). */
  tsc5: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    pkg: ProvidedPackage;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const work = mkdtempSync(join(tmpdir(), "gatehouse-package-"));
  const packed = await buildAndPack(work);
  const fixtures = Object.fromEntries(FIXTURES.map((name) => [name, join(work, name)])) as Record<FixtureName, string>;
  const tools = join(work, "ts5");
  mkdirSync(tools);
  await Promise.all([
    ...FIXTURES.map((name) =>
      installFixture(packed.tarball, join(REPO_ROOT, "test/package/fixtures", name), fixtures[name]),
    ),
    run("npm", ["install", ...NPM_INSTALL_FLAGS, "--no-save", "typescript@~5.9.0"], {
      cwd: tools,
      env: userEnv(),
    }).then((ran) => must("npm install typescript@5.9", ran)),
  ]);
  project.provide("pkg", { work, ...packed, fixtures, tsc5: join(tools, "node_modules/typescript/bin/tsc") });
  return () => {
    if (!process.env.GATEHOUSE_PACKAGE_KEEP) rmSync(work, { recursive: true, force: true });
  };
}
