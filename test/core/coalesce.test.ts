import { describe, expect, it } from "vitest";
import { Coalescer } from "../../client-sdk/core/coalesce";

/** A send that records each call's count and answers `prefix:i` for the i-th caller of the call. */
function recorder() {
  const calls: number[] = [];
  const send = async (count: number) => {
    calls.push(count);
    await scheduler.wait(0);
    return Array.from({ length: count }, (_, i) => `${calls.length}:${i}`);
  };
  return { calls, send };
}

describe("Coalescer", () => {
  it("sends concurrent callers of one lane as one call and answers each in arrival order", async () => {
    const c = new Coalescer<string>();
    const { calls, send } = recorder();
    const answers = await Promise.all(Array.from({ length: 50 }, () => c.run("k", send)));
    expect(calls).toEqual([50]);
    expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => `1:${i}`));
    expect(c.size).toBe(0);
  });

  it("keeps lanes apart", async () => {
    const c = new Coalescer<string>();
    const { calls, send } = recorder();
    await Promise.all(["a", "b", "a", "b", "a"].map((lane) => c.run(lane, send)));
    expect(calls.sort()).toEqual([2, 3]);
  });

  it("holds callers that arrive during a call and sends them together as the next one", async () => {
    const c = new Coalescer<string>();
    const { calls, send } = recorder();
    const first = c.run("k", send);
    await Promise.resolve();
    await Promise.resolve(); // the first call is in flight now
    const later = Array.from({ length: 10 }, () => c.run("k", send));
    expect(await first).toBe("1:0");
    expect(await Promise.all(later)).toEqual(Array.from({ length: 10 }, (_, i) => `2:${i}`));
    expect(calls).toEqual([1, 10]);
  });

  it("never asks one call for more than maxBatch answers", async () => {
    const c = new Coalescer<string>({ maxBatch: 4 });
    const { calls, send } = recorder();
    const answers = await Promise.all(Array.from({ length: 10 }, () => c.run("k", send)));
    expect(calls).toEqual([4, 4, 2]);
    expect(new Set(answers).size).toBe(10);
  });

  it("fails every caller of a call that failed, and the next call is sent again", async () => {
    const c = new Coalescer<string>();
    let fail = true;
    const send = async (count: number) => {
      if (fail) throw new Error("store down");
      return Array.from({ length: count }, () => "ok");
    };
    const failed = await Promise.allSettled(Array.from({ length: 5 }, () => c.run("k", send)));
    expect(failed.every((r) => r.status === "rejected" && (r.reason as Error).message === "store down")).toBe(true);
    fail = false;
    expect(await c.run("k", send)).toBe("ok");
  });

  it("treats an answer of the wrong length as a failure of the call", async () => {
    const c = new Coalescer<string>();
    const results = await Promise.allSettled([1, 2, 3].map(() => c.run("k", async () => ["only one"])));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
  });

  it("does not wait on a call whose sender went away: after staleMs the callers send again", async () => {
    let now = 1_000;
    const c = new Coalescer<string>({ staleMs: 1, clock: () => now });
    const sent: number[] = [];
    let hang = true;
    const send = (count: number) => {
      sent.push(count);
      // The first call never answers, like the call of a request that was cancelled.
      return hang ? new Promise<string[]>(() => {}) : Promise.resolve(Array.from({ length: count }, () => "again"));
    };
    // Two callers of one turn: the call that takes them never answers, like the call of a cancelled request.
    const lost = c.run("k", send);
    const heldByLost = c.run("k", send);
    await scheduler.wait(0);
    const later = c.run("k", send);
    await scheduler.wait(5);
    expect(sent).toEqual([2]); // the clock has not moved: the call in flight is not stale
    hang = false;
    now += 1;
    // The other caller of the lost call asks again (at worst counted twice, never admitted twice).
    expect(await Promise.all([heldByLost, later])).toEqual(["again", "again"]);
    // Both asked again once, together or apart depending on which timer fires first.
    expect(sent[0]).toBe(2);
    expect(sent.slice(1).reduce((a, b) => a + b, 0)).toBe(2);
    void lost; // its request is gone in real life; here it just never answers
  });
});
