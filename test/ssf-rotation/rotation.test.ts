/**
 * Key rotation with both keys published during the overlap, on the receiver's side (issue 32): the
 * transmitter's keys come from its `jwksUri` (jwks-host.js) and rotate A → A+B → B. The receiver
 * follows the rules of workers/auth/ssf/receiver/remote-keys.ts on the clock worker.ts holds: the
 * set is fetched for the first SET, again once it is JWKS_MAX_AGE_MS (10 min) old, and again for a
 * `kid` it lacks once the last fetch is JWKS_COOLDOWN_MS (30 s) old; a failed fetch answers 503.
 * The steps run in order, each from the cache the one before left; no step waits on the wall clock.
 */
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import type { JWK } from "jose";
import { describe, expect, it } from "vitest";
import { JWKS_COOLDOWN_MS, JWKS_MAX_AGE_MS } from "../../workers/auth/ssf/receiver";
import { KEYS } from "./keys";
import { failWith, jwksRequests, publish, push, revokeAllOf } from "./transmitter";
import { clock, JWKS_URI } from "./worker";

function manager(): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
}

let n = 0;
/** A fresh person with two live sessions. */
async function signedIn(): Promise<string> {
  const id = `user_rot_${Date.now().toString(36)}_${++n}`;
  const user = { id, email: `${id}@acme.test`, firstName: "Test", lastName: id, memberships: [] };
  await manager().createSession(user);
  await manager().createSession(user);
  return id;
}

async function liveSessions(userId: string): Promise<number> {
  return (await manager().listSessions(userId)).length;
}

interface Pushed {
  user: string;
  set: string;
  res: Response;
}

/** A SET signed with `key` ending every session of a fresh person, pushed now (by the test clock). */
async function pushSignedWith(key: JWK): Promise<Pushed> {
  const user = await signedIn();
  const set = await revokeAllOf(user, key);
  return { user, set, res: await push(set) };
}

/** Accepted (RFC 8935 §2.2) and acted on: the person's sessions are gone. */
async function expectActed({ user, res }: Pushed): Promise<void> {
  expect(res.status).toBe(202);
  expect(await liveSessions(user)).toBe(0);
}

/** Refused (RFC 8935 §2.3, code of §2.4), nothing ended. */
async function expectRefused({ user, res }: Pushed, err: string): Promise<void> {
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ err, description: expect.any(String) });
  expect(await liveSessions(user)).toBe(2);
}

/** Not checked (the keys could not be fetched): 503 with Retry-After, so the transmitter retries. */
async function expectUnavailable({ user, res }: Pushed): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get("Retry-After")).toBe("30");
  expect(await liveSessions(user)).toBe(2);
}

let counted = 0;
/** The statuses the JWKS host answered since the last call: the receiver's fetches of the set. */
async function fetchesSinceLast(): Promise<number[]> {
  const all = await jwksRequests();
  const fresh = all.slice(counted);
  counted = all.length;
  for (const r of fresh) {
    expect(r).toMatchObject({ method: "GET", url: JWKS_URI });
    expect(r.accept).toContain("application/jwk-set+json");
  }
  return fresh.map((r) => r.status);
}

describe("key rotation with both keys published during the overlap (receiver)", () => {
  /** The test clock at the receiver's last successful fetch of the set. */
  let fetchedAt = 0;

  it("(a) A only: a SET signed with A is accepted and acts; the set is fetched once, then cached", async () => {
    await publish(KEYS.a);
    const bystander = await signedIn();
    await expectActed(await pushSignedWith(KEYS.a));
    expect(await fetchesSinceLast()).toEqual([200]);
    fetchedAt = clock.now;
    expect(await liveSessions(bystander)).toBe(2);

    clock.now += 1000;
    await expectActed(await pushSignedWith(KEYS.a));
    expect(await fetchesSinceLast()).toEqual([]);
  });

  it("(b) A and B published: B's kid is learned by a refetch once the cooldown has passed; A still verifies", async () => {
    await publish(KEYS.a, KEYS.b);
    // A kid the cached set lacks, within the cooldown: refused as remote-keys.ts says, the host not asked.
    clock.now = fetchedAt + JWKS_COOLDOWN_MS - 1;
    await expectRefused(await pushSignedWith(KEYS.b), "invalid_key");
    expect(await fetchesSinceLast()).toEqual([]);

    // From the cooldown's end, the unknown kid fetches the set again, which now holds B.
    clock.now = fetchedAt + JWKS_COOLDOWN_MS;
    await expectActed(await pushSignedWith(KEYS.b));
    expect(await fetchesSinceLast()).toEqual([200]);
    fetchedAt = clock.now;

    // Both keys verify from the cache during the overlap.
    await expectActed(await pushSignedWith(KEYS.a));
    await expectActed(await pushSignedWith(KEYS.b));
    expect(await fetchesSinceLast()).toEqual([]);
  });

  it("(c) A removed: trusted until the cached set is JWKS_MAX_AGE_MS old, then refused invalid_key", async () => {
    await publish(KEYS.b);
    // The cached set is still young enough: A, already gone from the JWKS, still verifies.
    clock.now = fetchedAt + JWKS_MAX_AGE_MS - 1;
    await expectActed(await pushSignedWith(KEYS.a));
    expect(await fetchesSinceLast()).toEqual([]);

    // At the max age the set is fetched again before anything is checked: A is gone.
    clock.now = fetchedAt + JWKS_MAX_AGE_MS;
    await expectRefused(await pushSignedWith(KEYS.a), "invalid_key");
    expect(await fetchesSinceLast()).toEqual([200]);
    fetchedAt = clock.now;

    // B verifies from that set; A again within the cooldown is refused without another fetch.
    await expectActed(await pushSignedWith(KEYS.b));
    await expectRefused(await pushSignedWith(KEYS.a), "invalid_key");
    expect(await fetchesSinceLast()).toEqual([]);
  });

  it("(d) the JWKS host failing: cached keys verify; a kid with no cached key, or a set too old, is a 503", async () => {
    await failWith(500);
    // Cached and young: verified without asking the failing host.
    clock.now = fetchedAt + JWKS_COOLDOWN_MS;
    await expectActed(await pushSignedWith(KEYS.b));
    expect(await fetchesSinceLast()).toEqual([]);

    // C (the next key) has no cached key: the receiver asks, the host fails, the SET waits.
    const next = await pushSignedWith(KEYS.c);
    await expectUnavailable(next);
    expect(await fetchesSinceLast()).toEqual([500]);
    // The host is back with C: the transmitter's retry (the same SET, after Retry-After) acts.
    await failWith(0);
    await publish(KEYS.b, KEYS.c);
    clock.now += 30_000;
    await expectActed({ ...next, res: await push(next.set) });
    expect(await fetchesSinceLast()).toEqual([200]);
    fetchedAt = clock.now;

    // A cached set at its max age is not trusted while it cannot be refreshed, not even for B.
    await failWith(500);
    clock.now = fetchedAt + JWKS_MAX_AGE_MS;
    const stale = await pushSignedWith(KEYS.b);
    await expectUnavailable(stale);
    expect(await fetchesSinceLast()).toEqual([500]);
    await failWith(0);
    clock.now += 30_000;
    await expectActed({ ...stale, res: await push(stale.set) });
    expect(await fetchesSinceLast()).toEqual([200]);
  });
});
