/**
 * @module
 * Part of the session lifecycle (`../lifecycle.ts`): runs the consumer's hooks (`onSignIn`,
 * `onSignOut`, `onRevoke`) after a change is committed. A hook observes; it never refuses, never
 * fails the request (its failure is logged, message only) and never holds it up past `timeoutMs`.
 */
import { withDeadline } from "../../../../client-sdk/core/deadline";
import type { SessionHooks } from "../config";

/** A hook that outran its deadline. */
class HookTimeout extends Error {}

export class HookRunner {
  readonly #hooks: SessionHooks;
  readonly #timeoutMs: number;

  constructor(hooks: SessionHooks, timeoutMs: number) {
    this.#hooks = hooks;
    this.#timeoutMs = timeoutMs;
  }

  /** Runs one hook; one that takes longer than the deadline is left running and logged. */
  async notify<K extends keyof SessionHooks>(
    name: K,
    event: Parameters<NonNullable<SessionHooks[K]>>[0],
  ): Promise<void> {
    const hook = this.#hooks[name] as ((e: typeof event) => void | Promise<void>) | undefined;
    if (!hook) return;
    try {
      const ran = new Promise<void>((resolve) => resolve(hook.call(this.#hooks, event)));
      await withDeadline(ran, this.#timeoutMs, () => new HookTimeout());
    } catch (err) {
      const why = err instanceof HookTimeout ? `took longer than ${this.#timeoutMs} ms; not waited for` : "failed";
      console.error(
        `gatehouse: ${name} hook ${why}`,
        err instanceof HookTimeout ? "" : err instanceof Error ? err.message : err,
      );
    }
  }
}
