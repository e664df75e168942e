/**
 * Vitest globalSetup of the "e2e" project: checks that Chromium is there, starts the whole local
 * system once for every flow (see stack.ts) and hands its addresses to the tests
 * (`inject("e2e")`). Teardown stops every process it started, also when a test failed.
 */
import type { TestProject } from "vitest/node";
import { chromiumPath } from "./chromium.ts";
import { type E2EStack, startStack } from "./stack.ts";

declare module "vitest" {
  export interface ProvidedContext {
    e2e: E2EStack & { chromium: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const chromium = chromiumPath(); // before anything starts: fail fast with the fix
  const stack = await startStack();
  const { stop, ...provided } = stack;
  project.provide("e2e", { ...provided, chromium });
  return stop;
}
