/**
 * globalSetup of bench-bundle: the bundles are measured on what users get. It builds dist/, packs
 * the tarball into a temporary folder and installs it with its peers from the registry into copies
 * of the fixtures measured here: the auth worker made with createAuthWorker and the consuming
 * worker of the package test (test/package/fixtures), and the SDK-only workers of bench/bundle/fixtures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildAndPack, installFixture, REPO_ROOT } from "../../tooling/package/index.ts";

export const BUNDLE_FIXTURES = {
  "auth-worker": "test/package/fixtures/auth-worker",
  consumer: "test/package/fixtures/consumer",
  "consumer-client": "bench/bundle/fixtures/consumer-client",
  "html-only": "bench/bundle/fixtures/html-only",
} as const;
export type BundleFixture = keyof typeof BUNDLE_FIXTURES;

declare module "vitest" {
  export interface ProvidedContext {
    bundleFixtures: Record<BundleFixture, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const work = mkdtempSync(join(tmpdir(), "gatehouse-bench-bundle-"));
  const { tarball } = await buildAndPack(work);
  const installed = {} as Record<BundleFixture, string>;
  await Promise.all(
    (Object.keys(BUNDLE_FIXTURES) as BundleFixture[]).map(async (name) => {
      installed[name] = join(work, name);
      await installFixture(tarball, join(REPO_ROOT, BUNDLE_FIXTURES[name]), installed[name]);
    }),
  );
  project.provide("bundleFixtures", installed);
  return () => rmSync(work, { recursive: true, force: true });
}
