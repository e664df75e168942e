/**
 * A stand-in for an app's `GatehouseRevocations` entrypoint (the SDK's is built apart): it keeps
 * every notice that reaches it over the auth worker's service binding (APP_RECEIVER), in arrival
 * order with how the call went, and answers `{ closed }`, or throws while told to fail, or waits
 * while told to hold. It closes nothing and checks nothing: the tests read what arrived. Plain
 * JavaScript: miniflare loads auxiliary workers without a bundler.
 *
 * Control (the `Control` entrypoint, APP_CONTROL): fail(userId, times), hold(userId),
 * release(userId), received(userId).
 */
import { WorkerEntrypoint } from "cloudflare:workers";

/** Every call, in arrival order: { notice, outcome: "held" | "ok" | "failed" }. */
const calls = [];
/** user id → calls still to refuse. */
const failing = new Map();
/** Users whose calls wait until released. */
const holding = new Set();
/** user id → the resolvers of the calls waiting (each made in its call's own request context). */
const waiting = new Map();

export class GatehouseRevocations extends WorkerEntrypoint {
  async sessionsEnded(notice) {
    const call = { notice: structuredClone(notice), outcome: "held" };
    calls.push(call);
    if (holding.has(notice.userId)) {
      await new Promise((resolve) => waiting.set(notice.userId, [...(waiting.get(notice.userId) ?? []), resolve]));
    }
    const remaining = failing.get(notice.userId) ?? 0;
    if (remaining > 0) {
      failing.set(notice.userId, remaining - 1);
      call.outcome = "failed";
      throw new Error("app receiver told to fail");
    }
    call.outcome = "ok";
    return { closed: notice.sessionIds.length };
  }
}

export class Control extends WorkerEntrypoint {
  fail(userId, times) {
    failing.set(userId, times);
  }

  hold(userId) {
    holding.add(userId);
  }

  release(userId) {
    holding.delete(userId);
    for (const resolve of waiting.get(userId) ?? []) resolve();
    waiting.delete(userId);
  }

  received(userId) {
    return calls.filter((c) => c.notice.userId === userId);
  }
}

export default {
  fetch() {
    return new Response("not found", { status: 404 });
  },
};
