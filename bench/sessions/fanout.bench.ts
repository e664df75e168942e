/**
 * revocation.fanout_ms_{100,1000,5000}: revoke a user holding N sessions with
 * 100 open sockets, timed from the call until every KV record is replaced by its revoked mark (the
 * object's pending-delete queue is empty, continuing by alarm past one batch)
 * and every socket has its `session.revoked` message. Local workerd, real KV.
 * revocation.notify_ms_N: the same start, until all 100 sockets have their message
 * (strict mode refuses the sessions from the first moment, before any KV delete).
 * auth.strict_vs_eventual_ratio: resolveUser in strict mode over eventual mode.
 */
import { env, exports } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { it } from "vitest";
import { isRevokedMark } from "../../client-sdk/protocol/session-record";
import { ratio, record } from "../harness";

const ORIGIN = "https://auth.example.com";
let run = 0;

async function fanout(sessionCount: number, socketCount: number): Promise<{ notifiedMs: number; drainedMs: number }> {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
  const userId = `user_bench_${sessionCount}_${++run}`;
  const cookies: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < sessionCount; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, sessionCount - i) }, () =>
        sessions.createSession({ id: userId, email: "b@acme.test", firstName: "B", lastName: "C", memberships: [] }),
      ),
    );
    for (const m of made) {
      cookies.push(m.response.headers.get("Set-Cookie")!.split(";")[0]!);
      ids.push(m.sessionId);
    }
  }
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
  await notified;
  while ((await stub.stats()).pendingKvDeletes > 0) await new Promise((r) => setTimeout(r, 1));
  const drainedAt = performance.now();

  // Check, outside the timing, that every record really is gone (replaced by its revoked mark).
  for (let i = 0; i < ids.length; i += 100) {
    const left = await Promise.all(ids.slice(i, i + 100).map((id) => env.SESSIONS.get(`sess:${id}`, "json")));
    if (!left.every(isRevokedMark)) throw new Error("a revoked session's KV record survived");
  }
  return { notifiedMs: Math.round(notifiedAt - start), drainedMs: Math.round(drainedAt - start) };
}

it("revocation.fanout_ms", async (ctx) => {
  for (const n of [100, 1_000, 5_000]) {
    const { notifiedMs, drainedMs } = await fanout(n, 100);
    record(ctx, `revocation.fanout_ms_${n}`, {
      value: drainedMs,
      unit: "ms",
      goal: n === 1_000 ? "< 250" : "reported (growth)",
    });
    record(ctx, `revocation.notify_ms_${n}`, {
      value: notifiedMs,
      unit: "ms",
      goal: "reported (all 100 sockets told)",
    });
  }
});

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
