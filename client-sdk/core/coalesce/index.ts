/**
 * @module
 * `Coalescer`: concurrent calls for the same lane (one rate-limit key) in one
 * isolate travel as one call that asks for N answers. At most one call per
 * lane is in flight; callers that arrive meanwhile queue, and when it returns
 * the first of them sends the whole queue as the next call. Answers come back
 * in arrival order, so an object that decides a batch in order is as exact as
 * N separate calls.
 *
 * Requests share only plain data and promises that the request which made them
 * also settles: workerd refuses to settle a promise of one request from another
 * ("Cannot perform I/O on behalf of a different request"), so a waiting caller
 * never hands its own promise to the sender. Each batch is sent by one of its
 * own callers, from that caller's request, with that caller's `send`; the
 * others await the sender's promise and then read their answer. A sender whose
 * request went away never settles: after `staleMs` the callers it held (and
 * new ones) send again themselves, so nobody waits on it for longer (a call
 * the object may already have counted is then counted twice: never more
 * admitted, at worst one more refused). The coalescer never decides anything itself.
 */

/** Sends one call for `count` callers and answers with exactly `count` results, in order. */
export type BatchSend<T> = (count: number) => Promise<readonly T[]>;

export interface CoalescerOptions {
  /** Most callers one call answers. Default 1000. */
  maxBatch?: number;
  /** A lane whose call started this long ago is treated as abandoned, unless a caller says otherwise. Default 250 ms. */
  staleMs?: number;
  /** Milliseconds since the epoch; injected in tests. Default `Date.now`. */
  clock?: () => number;
}

export const DEFAULT_MAX_BATCH = 1000;
export const DEFAULT_STALE_MS = 250;

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** One call in flight: settled (never rejected) by the request that sends it, when it has answered. */
interface Batch {
  done: Promise<void>;
  since: number;
}

interface Entry<T> {
  outcome?: Outcome<T>;
  /** The batch that took this caller, once one has. */
  batch?: Batch;
}

interface Lane<T> {
  /** Callers waiting for a batch, in arrival order. */
  queue: Entry<T>[];
  /** The call in flight, if any. */
  current?: Batch;
}

export class Coalescer<T> {
  readonly #lanes = new Map<string, Lane<T>>();
  readonly #maxBatch: number;
  readonly #staleMs: number;
  readonly #clock: () => number;

  constructor({ maxBatch = DEFAULT_MAX_BATCH, staleMs = DEFAULT_STALE_MS, clock = Date.now }: CoalescerOptions = {}) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError("maxBatch must be a positive integer");
    if (!(staleMs > 0)) throw new RangeError("staleMs must be positive");
    this.#maxBatch = maxBatch;
    this.#staleMs = staleMs;
    this.#clock = clock;
  }

  /** Lanes with a call in flight or callers waiting (for tests and metrics). */
  get size(): number {
    return this.#lanes.size;
  }

  /**
   * This caller's answer. `send` is called (by this caller, from its own
   * request) only when this caller sends a batch; `count` includes it.
   * `staleMs`: how long this caller waits on a call in flight before it
   * treats it as abandoned (its own deadline, typically).
   */
  async run(laneKey: string, send: BatchSend<T>, staleMs = this.#staleMs): Promise<T> {
    if (!(staleMs > 0)) throw new RangeError("staleMs must be positive");
    let lane = this.#lanes.get(laneKey);
    if (!lane) {
      lane = { queue: [] };
      this.#lanes.set(laneKey, lane);
    }
    const me: Entry<T> = {};
    lane.queue.push(me);
    for (;;) {
      if (me.outcome) return unwrap(me.outcome);
      const now = this.#clock();
      // Taken by a batch whose sender went away: ask again (counted twice at worst, never admitted twice).
      if (me.batch !== undefined && now - me.batch.since >= staleMs) {
        me.batch = undefined;
        if (!lane.queue.includes(me)) lane.queue.push(me);
      }
      const current = lane.current;
      if (current === undefined || now - current.since >= staleMs) return this.#send(laneKey, lane, me, send);
      await wait(current.done, staleMs);
    }
  }

  /** Sends the queue (this caller included) as one call, and answers every caller it took. */
  async #send(laneKey: string, lane: Lane<T>, me: Entry<T>, send: BatchSend<T>): Promise<T> {
    const done = Promise.withResolvers<void>();
    const batch: Batch = { done: done.promise, since: this.#clock() };
    lane.current = batch;
    // One turn of the microtask queue, so the callers of this same turn join the batch.
    await Promise.resolve();
    const mine = lane.queue.indexOf(me);
    const start = Math.max(0, Math.min(mine, lane.queue.length - this.#maxBatch));
    const taken = lane.queue.splice(start, this.#maxBatch);
    for (const entry of taken) entry.batch = batch;
    try {
      const values = await send(taken.length);
      if (values.length !== taken.length) {
        throw new RangeError(`a batch of ${taken.length} was answered with ${values.length} results`);
      }
      taken.forEach((entry, i) => {
        entry.outcome ??= { ok: true, value: values[i]! };
      });
    } catch (error) {
      for (const entry of taken) entry.outcome ??= { ok: false, error };
    } finally {
      if (lane.current === batch) lane.current = undefined;
      if (lane.current === undefined && lane.queue.length === 0 && this.#lanes.get(laneKey) === lane) {
        this.#lanes.delete(laneKey);
      }
      done.resolve();
    }
    return unwrap(me.outcome!);
  }
}

/** Until `done` settles or `ms` pass, whichever is first; the timer is this request's own. */
async function wait(done: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stale = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([done, stale]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
}
