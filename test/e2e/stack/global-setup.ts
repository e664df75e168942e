/**
 * Vitest globalSetup of the "e2e" project: unpacks Chromium (npm's @sparticuz/chromium, or CHROMIUM_PATH), starts the whole local
 * system once for every flow (see stack.ts) and hands its addresses to the tests
 * (`inject("e2e")`). Teardown stops every process it started, also when a test failed.
 */
import type { TestProject } from "vitest/node";
import { type ChromiumLaunch, chromiumLaunch, weakensOrigins } from "./chromium.ts";
import { type E2EStack, startStack } from "./stack.ts";

declare module "vitest" {
  export interface ProvidedContext {
    e2e: E2EStack & { chromium: ChromiumLaunch };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const chromium = await chromiumLaunch(); // before anything starts: fail fast
  if (weakensOrigins(chromium.args)) throw new Error("Chromium flags would disable origin checks");
  const stack = await startStack();
  const { stop, ...provided } = stack;
  project.provide("e2e", { ...provided, chromium });
  return stop;
}
