/**
 * revocation.fanout_ms_{100,1000,5000}: revoke a user holding N sessions with
 * 100 open sockets, timed from the call until every KV record is replaced by its revoked mark (the
 * object's pending-delete queue is empty, continuing by alarm past one batch)
 * and every socket has its `session.revoked` message. Local workerd, real KV.
 * revocation.notify_ms_N: the same start, until all 100 sockets have their message
 * (strict mode refuses the sessions from the first moment, before any KV delete).
 * Two floors of the drain, the same marks written straight from a Worker, never more than 1,000
 * KV operations per invocation (production's limit): revocation.floor_ms_N with the drain's own
 * batch and parallelism, and revocation.fastest_floor_ms_N, the fastest of several batch sizes and
 * parallelisms (`floorShapes`, bench/kv-floor.ts) tried in the same run, which
 * revocation.kv_drain_vs_floor_ratio is taken against (both ratios are reported).
 * auth.strict_vs_eventual_ratio: resolveUser in strict mode over eventual mode.
 */
import { env, exports } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { it } from "vitest";
import { inPool } from "../../client-sdk/core/pool";
import { isRevokedMark } from "../../client-sdk/protocol/session-record";
import { DEFAULT_REVOCATION_BATCH, KV_PARALLELISM } from "../../durable-objects/user-sessions/lifecycle/revocation";
import { ratio, record, round } from "../harness";
import { describeShape, type FloorShape, floorShapes } from "../kv-floor";
import type { KvFloor } from "./worker";

const ORIGIN = "https://auth.example.com";
// The type-check sees every project's main module at once, so this one's entrypoint is named here.
const kvFloor = (exports as unknown as { KvFloor: Service<KvFloor> }).KvFloor;
let run = 0;

/** Signs a new user in `count` times; their session ids and cookies. */
async function signedIn(userId: string, count: number): Promise<{ ids: string[]; cookies: string[] }> {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
  const cookies: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, () =>
        sessions.createSession({ id: userId, email: "b@acme.test", firstName: "B", lastName: "C", memberships: [] }),
      ),
    );
    for (const m of made) {
      cookies.push(m.response.headers.get("Set-Cookie")!.split(";")[0]!);
      ids.push(m.sessionId);
    }
  }
  return { ids, cookies };
}

/** Every record of `ids` is a revoked mark now (checked outside any timing). */
async function allMarked(ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const left = await Promise.all(ids.slice(i, i + 100).map((id) => env.SESSIONS.get(`sess:${id}`, "json")));
    if (!left.every(isRevokedMark)) throw new Error("a revoked session's KV record survived");
  }
}

/** The drain's own shape: its batch per invocation, its writes in flight, one invocation after another. */
const DRAIN_SHAPE: FloorShape = { batch: DEFAULT_REVOCATION_BATCH, width: KV_PARALLELISM, invocations: 1 };

/** Ms to write the revoked marks of `ids` in `shape` (each batch one `KvFloor` invocation). */
async function writeMarks(ids: string[], userId: string, shape: FloorShape): Promise<number> {
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += shape.batch) batches.push(ids.slice(i, i + shape.batch));
  const now = Date.now();
  const start = performance.now();
  const results = await inPool(batches, shape.invocations, (batch) => kvFloor.marks(batch, userId, now, shape.width));
  const elapsed = performance.now() - start;
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return elapsed;
}

/**
 * The drain's floor: the same marks over the same number of live records, written straight from
 * a Worker with the drain's batching (one invocation per drain batch, one after another like the
 * drain's) and its writes in flight.
 */
async function floor(sessionCount: number): Promise<{ ms: number; ids: string[]; userId: string }> {
  const userId = `user_floor_${sessionCount}_${++run}`;
  const { ids } = await signedIn(userId, sessionCount);
  const elapsed = await writeMarks(ids, userId, DRAIN_SHAPE);
  await allMarked(ids);
  return { ms: Math.round(elapsed), ids, userId };
}

/**
 * The fastest floor: the same marks over the records `floor` just wrote, in each of `shapes`, one
 * after another over the same records (miniflare does not enforce KV's one write per key per
 * second, and each shape overwrites existing records as the drain does); the fastest and its ms.
 */
async function fastestFloor(
  ids: string[],
  userId: string,
  shapes: readonly FloorShape[],
): Promise<{ ms: number; shape: FloorShape }> {
  let best = { ms: Number.POSITIVE_INFINITY, shape: DRAIN_SHAPE };
  const tried: string[] = [];
  for (const shape of shapes) {
    const ms = await writeMarks(ids, userId, shape);
    tried.push(`${shape.batch}/${shape.width}/${shape.invocations}: ${Math.round(ms)} ms`);
    if (ms < best.ms) best = { ms, shape };
  }
  await allMarked(ids);
  console.log("fastest floor", { sessionCount: ids.length, tried, fastest: describeShape(best.shape) });
  return { ms: Math.round(best.ms), shape: best.shape };
}

async function fanout(sessionCount: number, socketCount: number): Promise<{ notifiedMs: number; drainedMs: number }> {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
  const userId = `user_bench_${sessionCount}_${++run}`;
  const { ids, cookies } = await signedIn(userId, sessionCount);
  let told = 0;
  const allTold = new Promise<void>((resolve) => {
    for (let i = 0; i < socketCount; i++) {
      void exports.default
        .fetch(`${ORIGIN}/parties/user-sessions/${userId}`, {
          headers: { Upgrade: "websocket", Cookie: cookies[i]!, Origin: ORIGIN },
        })
        .then((res) => {
          const ws = res.webSocket!;
          ws.accept();
          ws.addEventListener("message", (e) => {
            if (String(e.data).includes("session.revoked") && ++told === socketCount) resolve();
          });
        });
    }
  });
  const stub = env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
  while ((await stub.stats()).sockets < socketCount) await new Promise((r) => setTimeout(r, 5));

  const start = performance.now();
  let notifiedAt = 0;
  const notified = allTold.then(() => {
    notifiedAt = performance.now();
  });
  await sessions.revokeUser(userId);
  const returnedAt = performance.now();
  await notified;
  // Polled every 5 ms (each poll is a call into the object doing the work: more often would slow it).
  while ((await stub.stats()).pendingKvDeletes > 0) await new Promise((r) => setTimeout(r, 5));
  const drainedAt = performance.now();
  console.log("fanout", {
    sessionCount,
    returnedMs: Math.round(returnedAt - start),
    drainedMs: Math.round(drainedAt - start),
  });

  // Check, outside the timing, that every record really is gone (replaced by its revoked mark).
  await allMarked(ids);
  return { notifiedMs: Math.round(notifiedAt - start), drainedMs: Math.round(drainedAt - start) };
}

it("revocation.fanout_ms and the drain against its floors", { timeout: 1_200_000 }, async (ctx) => {
  const points: { n: number; drainedMs: number; floorMs: number; fastestMs: number }[] = [];
  // Every shape of `floorShapes` at 100 and 1,000 (where the ratio is taken); at 5,000 (each shape
  // five times as long) the fastest shape at 1,000 and the drain's own.
  let fastestAt1000: FloorShape = DRAIN_SHAPE;
  for (const n of [100, 1_000, 5_000]) {
    const shapes = n === 5_000 ? [fastestAt1000, DRAIN_SHAPE] : floorShapes(n);
    // Floor and drain alternate (twice at 100 and 1,000; the better of each), so neither side gets a warmer runtime.
    const rounds = n === 5_000 ? 1 : 2;
    let floorMs = Number.POSITIVE_INFINITY;
    let drainedMs = Number.POSITIVE_INFINITY;
    let notifiedMs = Number.POSITIVE_INFINITY;
    let fastest = { ms: Number.POSITIVE_INFINITY, shape: DRAIN_SHAPE };
    for (let r = 0; r < rounds; r++) {
      const same = await floor(n);
      floorMs = Math.min(floorMs, same.ms);
      const once = await fanout(n, 100);
      drainedMs = Math.min(drainedMs, once.drainedMs);
      notifiedMs = Math.min(notifiedMs, once.notifiedMs);
      const shaped = await fastestFloor(same.ids, same.userId, shapes);
      if (shaped.ms < fastest.ms) fastest = shaped;
    }
    // The drain's own shape is one of those tried: the fastest floor is never slower than it.
    if (floorMs < fastest.ms) fastest = { ms: floorMs, shape: DRAIN_SHAPE };
    if (n === 1_000) fastestAt1000 = fastest.shape;
    points.push({ n, drainedMs, floorMs, fastestMs: fastest.ms });
    record(ctx, `revocation.fanout_ms_${n}`, { value: drainedMs, unit: "ms", goal: "reported (growth)" });
    record(ctx, `revocation.floor_ms_${n}`, {
      value: floorMs,
      unit: "ms",
      goal: "reported (the same KV writes from a Worker, the drain's batching and parallelism)",
    });
    record(ctx, `revocation.fastest_floor_ms_${n}`, {
      value: fastest.ms,
      unit: "ms",
      goal: `reported (the fastest shape tried: ${describeShape(fastest.shape)})`,
    });
    record(ctx, `revocation.notify_ms_${n}`, {
      value: notifiedMs,
      unit: "ms",
      goal: "reported (all 100 sockets told)",
    });
  }
  const at1000 = points.find((p) => p.n === 1_000)!;
  record(ctx, "revocation.kv_drain_vs_floor_ratio", {
    value: round(at1000.drainedMs / at1000.fastestMs),
    unit: "x",
    goal: "<= 1.2",
    reason:
      "the drain keeps its own shape, 500 marks per invocation (room left in the 1,000 operations for the rewrites) with 25 writes in flight, while the fastest floor is whichever shape was fastest here (named in revocation.fastest_floor_ms_1000's goal); against a floor of the drain's own shape it is revocation.kv_drain_vs_same_batching_floor_ratio. The fastest floor is also the best of every shape over two rounds, the drain the best of two runs, so on a busy machine part of the gap is that minimum.",
  });
  record(ctx, "revocation.kv_drain_vs_same_batching_floor_ratio", {
    value: round(at1000.drainedMs / at1000.floorMs),
    unit: "x",
    goal: "reported (against the floor with the drain's batching and parallelism)",
  });
  // Growth: the least-squares slope of drain time over sessions, and how straight the line is (r²).
  const { slope, r2 } = linearFit(points.map((p) => [p.n, p.drainedMs]));
  record(ctx, "revocation.growth_ms_per_1000_sessions", {
    value: round(slope * 1_000, 1),
    unit: "ms",
    goal: "reported (linear: see revocation.growth_r2)",
  });
  record(ctx, "revocation.growth_r2", { value: round(r2), unit: "r²", goal: ">= 0.98 (linear)" });
  console.log("revocation drain vs floors", points);
});

/** Least-squares line through `xy`: its slope and the coefficient of determination. */
function linearFit(xy: [number, number][]): { slope: number; r2: number } {
  const n = xy.length;
  const mx = xy.reduce((a, [x]) => a + x, 0) / n;
  const my = xy.reduce((a, [, y]) => a + y, 0) / n;
  const sxy = xy.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const sxx = xy.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const slope = sxy / sxx;
  const ssRes = xy.reduce((a, [x, y]) => a + (y - (my + slope * (x - mx))) ** 2, 0);
  const ssTot = xy.reduce((a, [, y]) => a + (y - my) ** 2, 0);
  return { slope, r2: ssTot === 0 ? 1 : 1 - ssRes / ssTot };
}

it("auth.strict_vs_eventual_ratio", async (ctx) => {
  const strict = new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
    userSessions: env.USER_SESSIONS,
    revocation: "strict",
  });
  const eventual = new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
    userSessions: env.USER_SESSIONS,
    revocation: "eventual",
  });
  const { response } = await strict.createSession({
    id: "user_bench_ratio",
    email: "r@acme.test",
    firstName: "R",
    lastName: "R",
    memberships: [],
  });
  const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  const req = () => new Request(ORIGIN, { headers: { Cookie: cookie } });
  const result = await ratio(
    async () => {
      if (!(await strict.resolveUser(req()))) throw new Error("strict lost the session");
    },
    async () => {
      if (!(await eventual.resolveUser(req()))) throw new Error("eventual lost the session");
    },
    { batches: 40, batch: 100, warmup: 500 },
  );
  record(ctx, "auth.strict_vs_eventual_ratio", {
    value: result.ratio,
    unit: "x",
    goal: "reported (cost of strict mode)",
  });
});
