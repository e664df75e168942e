/**
 * @module
 * The cost bench's per-person operations: sign-ins through the local provider, guarded requests of
 * a consuming app in both revocation modes, a slide, the app's sign-out, a live tab left open, and
 * rate-limit checks. Each measures through the deployed routes and entrypoints (operations.ts
 * `measure`) and adds its raw counts to `results` under the operation's name; each checks that the
 * operation did what it is named for, or throws.
 */
import { evictDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { KVSessionStore, type SessionRecord } from "../../client-sdk/protocol/session-record";
import { ACME_ID, ADA_ID, ALAN_ID, GLOBEX_ID, GRACE_ID } from "../../scripts/local-idp/demo-data";
import { countedService } from "./bindings";
import { between, billable, type RawCounts } from "./ledger";
import {
  APP,
  allMarked,
  BROWSER,
  entry,
  expectStatus,
  id,
  measure,
  ORIGIN,
  openSessions,
  organizations,
  person,
  settle,
  signIn,
  stamp,
  userObject,
} from "./operations";
import { type AuthService, UserSessions } from "./worker";

export type Results = Map<string, RawCounts>;
type Mode = "strict" | "eventual";

const guarded = (mode: Mode, cookie: string) =>
  entry.GuardedApp.fetch(`${APP}/${mode}/api/me`, { headers: { Cookie: cookie } });

async function guardedOk(mode: Mode, cookie: string): Promise<void> {
  await expectStatus(await guarded(mode, cookie), 200, `a guarded request (${mode})`);
}

async function repeat(n: number, fn: () => Promise<void>): Promise<void> {
  for (let i = 0; i < n; i++) await fn();
}

/** Ada's first sign-in (a new device, her directory entry written), then a returning one; a returning one in eventual mode. */
export async function signIns(results: Results): Promise<void> {
  if ((await userObject(ADA_ID).stats()).sessions !== 0)
    throw new Error("the bench needs fresh storage (Ada has sessions)");
  results.set("sign_in_first", await measure(async () => void (await signIn(entry.default, ADA_ID, ACME_ID))));
  results.set("sign_in", await measure(async () => void (await signIn(entry.default, ADA_ID, ACME_ID))));
  await signIn(entry.EventualAuthWorker, ALAN_ID, ACME_ID);
  results.set(
    "sign_in_eventual",
    await measure(async () => void (await signIn(entry.EventualAuthWorker, ALAN_ID, ACME_ID))),
  );
}

/**
 * A returning sign-in by a person with two organizations whose object delivers security events to
 * a Queue (the `SECURITY_EVENTS` binding, optional, not in the template): its object is built while
 * the class names the bench's Queue, so it alone delivers there; then the same sign-in with her
 * object rebuilt without it. The Queue's consumer is the host's: its read
 * and delete are in the Queue operations (three per message), its own Worker invocation is not.
 */
export async function signInWithQueue(results: Results): Promise<void> {
  const settings = UserSessions as unknown as { securityEventsQueue?: string };
  settings.securityEventsQueue = "COST_SECURITY_EVENTS";
  try {
    await userObject(GRACE_ID).stats();
  } finally {
    delete settings.securityEventsQueue;
  }
  await signIn(entry.default, GRACE_ID, GLOBEX_ID);
  const withQueue = await measure(async () => void (await signIn(entry.default, GRACE_ID, GLOBEX_ID)), {
    done: async () => (await userObject(GRACE_ID).stats()).pendingDeliveries === 0,
  });
  if (withQueue.queueMessages < 1) throw new Error("the sign-in sent no security event to the Queue");
  results.set("sign_in_security_events_queue", withQueue);
  // The same person without the Queue (her object rebuilt as the template deploys it): the difference is the Queue's.
  await evictDurableObject(userObject(GRACE_ID));
  const without = await measure(async () => void (await signIn(entry.default, GRACE_ID, GLOBEX_ID)));
  if (without.queueMessages !== 0) throw new Error("the rebuilt object still delivers to the Queue");
  results.set("sign_in_orgs2", without);
}

/** The guarded requests of one mode: no organization, three (epochs cached), three on a cold isolate cache. */
export async function guardedRequests(results: Results, mode: Mode): Promise<void> {
  const none = await openSessions(person(id(`${mode}0`)), 1);
  await guardedOk(mode, none.cookies[0]!);
  results.set(
    `guarded_${mode}_orgs0`,
    await measure(() => repeat(10, () => guardedOk(mode, none.cookies[0]!)), { count: 10 }),
  );
  const three = organizations(mode);
  const member = await openSessions(person(id(`${mode}3`), three), 1);
  // The first request reads the three organizations' epochs (KV, then cached 10 s per isolate).
  results.set(`guarded_${mode}_orgs3_cold_isolate`, await measure(() => guardedOk(mode, member.cookies[0]!)));
  results.set(
    `guarded_${mode}_orgs3`,
    await measure(() => repeat(10, () => guardedOk(mode, member.cookies[0]!)), { count: 10 }),
  );
  if (mode === "strict") {
    // The user's object was evicted (idle): the request wakes it, and its constructor runs again.
    await evictDurableObject(userObject(id(`${mode}0`)));
    const cold = await measure(() => guardedOk(mode, none.cookies[0]!));
    if (cold.objectStarts !== 1) throw new Error(`the evicted object was not rebuilt (${cold.objectStarts} starts)`);
    results.set("guarded_strict_cold_object", cold);
  }
}

/** A session last seen two hours ago: its next request slides it (the slide is that request minus a plain one). */
export async function slide(results: Results): Promise<void> {
  const user = id("slide");
  const { ids, cookies } = await openSessions(person(user), 1);
  const store = new KVSessionStore(env.SESSIONS);
  const stale = (await store.get(ids[0]!)) as SessionRecord;
  await store.put({ ...stale, lastSeenAt: stale.lastSeenAt - 2 * 3_600_000 });
  const sliding = await measure(() => guardedOk("strict", cookies[0]!));
  const after = (await store.get(ids[0]!)) as SessionRecord;
  if (after.lastSeenAt <= stale.lastSeenAt - 3_600_000) throw new Error("the request did not slide the session");
  const plain = await measure(() => guardedOk("strict", cookies[0]!));
  // What the sliding request did beyond a plain one.
  results.set("slide", between(plain, sliding));
}

/** The consuming app's sign-out of the session `cookie`: its own POST, resolved and revoked over the service binding. */
export async function appSignOut(mode: Mode, cookie: string): Promise<void> {
  const res = await entry.GuardedApp.fetch(`${APP}/${mode}/logout`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: APP },
    redirect: "manual",
  });
  await expectStatus(res, 303, "the app's sign-out");
}

/** One session ended by the app's sign-out. */
export async function revokeOne(results: Results, mode: Mode): Promise<void> {
  const { ids, cookies } = await openSessions(person(id(`revoke_${mode}`)), 1);
  results.set(
    mode === "strict" ? "revoke_one" : "revoke_one_eventual",
    await measure(() => appSignOut(mode, cookies[0]!)),
  );
  if (!(await allMarked(ids))) throw new Error("the signed-out session's record is not a revoked mark");
}

/**
 * A tab's live channel: the upgrade (route limit, session, the object's admission), then an hour
 * with the object hibernated. The page's script sends nothing (workers/auth/account/client/live.ts)
 * and the object's messages to it are not billed, so the hour adds nothing; checked here over a
 * quiet stretch after the object was evicted with its socket hibernated.
 */
export async function openTab(results: Results, mode: Mode): Promise<void> {
  const user = id(`tab_${mode}`);
  const { cookies } = await openSessions(person(user), 1);
  const worker = mode === "strict" ? entry.default : entry.EventualAuthWorker;
  let socket: WebSocket | undefined;
  const connect = await measure(async () => {
    const res = await worker.fetch(`${ORIGIN}/parties/user-sessions/${user}`, {
      headers: { ...BROWSER, Upgrade: "websocket", Cookie: cookies[0]!, Origin: ORIGIN },
    });
    if (res.status !== 101 || !res.webSocket) throw new Error(`the live channel answered ${res.status}`);
    socket = res.webSocket;
    socket.accept();
  });
  const hour = await measure(async () => {
    await evictDurableObject(userObject(user), { webSockets: "hibernate" });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  });
  const counted = Object.values(billable(hour)).reduce((a, b) => a + b, 0);
  if (counted !== 0) throw new Error(`a hibernated tab was billed: ${JSON.stringify(billable(hour))}`);
  results.set(mode === "strict" ? "tab_open_hour" : "tab_open_hour_eventual", connect);
  socket?.close(1000, "done");
  await settle();
}

/** One check of a fresh key over the service binding, and ten concurrent ones (coalesced into one call). */
export async function rateLimitChecks(results: Results): Promise<void> {
  // Over the service binding, as a consuming worker's AuthServiceClient calls it.
  const auth = countedService((exports as unknown as { AuthService: Service<AuthService> }).AuthService);
  results.set(
    "ratelimit_check_alone",
    await measure(async () => {
      await auth.checkRateLimit(`cost-alone-${stamp}`, 100, 60);
    }),
  );
  results.set(
    "ratelimit_check_coalesced",
    await measure(
      async () => {
        const decisions = await auth.checkRateLimitBatch(`cost-batch-${stamp}`, 100, 60, 10);
        if (decisions.length !== 10) throw new Error("the batch did not decide ten checks");
      },
      { count: 10 },
    ),
  );
}
