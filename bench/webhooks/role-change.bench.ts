/**
 * events.role_change_ms_100: a signed `organization_membership.updated` for a user holding 100
 * live sessions, timed from the request reaching the auth worker's webhook route until the work
 * it left in `waitUntil` is done and the user's object has no rewrite queued: every session's KV
 * record then carries the new role (checked after the timing, or the bench fails). Median of 7
 * runs, alternating the role, one second apart (KV takes one write per key per second).
 * events.role_change_ms_1000: the same for 1,000 sessions (past one batch of 400, by alarm).
 * events.role_change_floor_ms_100: a put-only floor, measured alternately in the same run: the same
 * 100 records put straight from a Worker in one invocation, as many in flight as the rewrite
 * (`KvFloor.puts`, worker.ts); reported, since the rewrite must also read what it rewrites.
 * events.role_change_vs_read_put_floor_ratio: the 100-session rewrite over the floor of a
 * read-modify-write of the same records (`KvFloor.readAndPut`: the records read in bulk as the
 * rewrite reads them, then put back, as many in flight as the rewrite, within one invocation's
 * 1,000 KV operations), also alternated. The rewrite must read each record it rewrites (a slide,
 * written by whichever worker served the request, may have changed it since the object last saw
 * it), so this floor does the least the rewrite can do.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { it } from "vitest";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import { median, record, round } from "../harness";
import worker, { type KvFloor, recordsWithRole } from "./worker";

// The type-check sees every project's main module at once, so this one's entrypoint is named here.
const kvFloor = (exports as unknown as { KvFloor: Service<KvFloor> }).KvFloor;

const ACME = "org_01ACME00000000000000000000";
let run = 0;

async function sessionsFor(userId: string, count: number): Promise<string[]> {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, () =>
        sessions.createSession(
          {
            id: userId,
            email: "b@acme.test",
            firstName: "B",
            lastName: "C",
            memberships: [{ organizationId: ACME, organizationSlug: "acme", role: "admin" }],
          },
          ACME,
        ),
      ),
    );
    ids.push(...made.map((m) => m.sessionId));
  }
  return ids;
}

async function roleChange(userId: string, role: string): Promise<number> {
  const body = JSON.stringify({
    id: `event_bench_${++run}_${crypto.randomUUID()}`,
    event: "organization_membership.updated",
    data: {
      object: "organization_membership",
      id: `om_${userId}`,
      user_id: userId,
      organization_id: ACME,
      organization_name: "Acme",
      status: "active",
      role: { slug: role },
      created_at: "2024-01-15T09:00:00.000Z",
      updated_at: new Date().toISOString(),
    },
    created_at: new Date().toISOString(),
  });
  // Signing is the provider's work: done before the clock starts.
  const signature = await signWebhook(body, env.IDENTITY_WEBHOOK_SECRET, Date.now());
  const init = {
    method: "POST",
    headers: { "content-type": "application/json", [WEBHOOK_SIGNATURE_HEADER]: signature },
    body,
  };
  const stub = env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
  const start = performance.now();
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request("https://auth.example.com/webhooks/identity", init), env, ctx);
  await waitOnExecutionContext(ctx);
  while ((await stub.providerEventStats()).pendingRewrites > 0) await new Promise((r) => setTimeout(r, 1));
  const elapsed = performance.now() - start;
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
  return elapsed;
}

async function verify(ids: string[], role: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const values = await env.SESSIONS.get(
      ids.slice(i, i + 100).map((id) => `sess:${id}`),
      "json",
    );
    for (const value of values.values()) {
      const memberships = (value as { memberships: { role: string }[] } | null)?.memberships;
      if (memberships?.[0]?.role !== role) throw new Error(`a session still has ${JSON.stringify(memberships)}`);
    }
  }
}

/** The read-modify-write floor: the sessions' records read and put back with `role` in one invocation; its ms. */
async function readPutFloor(ids: string[], role: string): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < ids.length; i += 400) await kvFloor.readAndPut(ids.slice(i, i + 400), role);
  return performance.now() - start;
}

/** The floor: the sessions' records with `role`, put from a Worker in one invocation; its ms. */
async function floor(ids: string[], role: string): Promise<number> {
  const records = await recordsWithRole(env.SESSIONS, ids, role);
  const start = performance.now();
  for (let i = 0; i < records.length; i += 400) await kvFloor.puts(records.slice(i, i + 400));
  return performance.now() - start;
}

async function measure(
  count: number,
  runs: number,
): Promise<{ rewriteMs: number; floorMs: number; readPutFloorMs: number }> {
  const userId = `user_bench_roles_${count}`;
  const ids = await sessionsFor(userId, count);
  const times: number[] = [];
  const floors: number[] = [];
  const readPutFloors: number[] = [];
  for (let i = 0; i < runs; i++) {
    const role = i % 2 === 0 ? "member" : "admin";
    await new Promise((r) => setTimeout(r, 1_100)); // one KV write per key per second
    times.push(await roleChange(userId, role));
    await verify(ids, role);
    await new Promise((r) => setTimeout(r, 1_100));
    // The same records the rewrite just wrote (the next rewrite must find the old role to change).
    floors.push(await floor(ids, role));
    await new Promise((r) => setTimeout(r, 1_100));
    readPutFloors.push(await readPutFloor(ids, role));
  }
  return {
    rewriteMs: Math.round(median(times)),
    floorMs: Math.round(median(floors)),
    readPutFloorMs: Math.round(median(readPutFloors)),
  };
}

it("events.role_change_ms", async (ctx) => {
  const hundred = await measure(100, 7);
  record(ctx, "events.role_change_ms_100", { value: hundred.rewriteMs, unit: "ms", goal: "reported" });
  record(ctx, "events.role_change_floor_ms_100", { value: hundred.floorMs, unit: "ms", goal: "reported" });
  record(ctx, "events.role_change_read_put_floor_ms_100", {
    value: hundred.readPutFloorMs,
    unit: "ms",
    goal: "reported",
  });
  record(ctx, "events.role_change_vs_read_put_floor_ratio", {
    value: round(hundred.rewriteMs / hundred.readPutFloorMs),
    unit: "x",
    goal: "<= 1.15",
    reason:
      "beyond the floor's bulk reads and puts, the rewrite verifies the webhook's signature, parses the event, and queues and clears its rewrite jobs in the user's object (SQLite): fixed costs of the same order as the goal's margin over a 100-session floor of a few hundred ms here, so this median of 7 lands on either side of 1.15 from run to run.",
  });
  const thousand = await measure(1_000, 3);
  record(ctx, "events.role_change_ms_1000", {
    value: thousand.rewriteMs,
    unit: "ms",
    goal: "reported (growth; past 400 continues by alarm)",
  });
  record(ctx, "events.role_change_floor_ms_1000", { value: thousand.floorMs, unit: "ms", goal: "reported" });
  record(ctx, "events.role_change_read_put_floor_ms_1000", {
    value: thousand.readPutFloorMs,
    unit: "ms",
    goal: "reported",
  });
  console.log("role change vs floor", { hundred, thousand });
});
