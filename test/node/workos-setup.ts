/**
 * Vitest globalSetup of the WorkOS contract suite: WorkOS's own emulator with the demo people
 * (scripts/workos-emulator/world.ts; installed into a cache folder on first use, never a
 * dependency), its coordinates handed to the tests (`inject("workos")`) and to the worker as
 * IDENTITY_* bindings. Stopped at teardown.
 */
import type { TestProject } from "vitest/node";
import { startWorkosEmulatorWorld, type WorkosEmulatorWorld } from "../../scripts/workos-emulator/world.ts";

/** What `inject("workos")` returns: the world without its Node-side handles (test/workos/provided.ts mirrors it). */
export type ProvidedWorkos = Omit<WorkosEmulatorWorld, "deliveries" | "close">;

declare module "vitest" {
  export interface ProvidedContext {
    workos: ProvidedWorkos;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const world = await startWorkosEmulatorWorld({ log: (line) => console.log(line) });
  const { deliveries: _d, close, ...provided } = world;
  project.provide("workos", provided);
  return close;
}
