/**
 * Device binding (issue 30, DBSC), the session object's module: challenges single-use and
 * short-lived on the object clock, one key per session, refresh against the stored key, and the
 * rows gone with the session's revocation. Runs in a real UserSessions object (its SQLite), with
 * proofs from the reference client (dbsc-client.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { UserSessions } from "gatehouse-workers/durable-objects";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  bindKey,
  CHALLENGE_TTL_MS,
  issueChallenge,
  keyOf,
  MAX_CHALLENGES_PER_SESSION,
  noteRefresh,
  spendChallenge,
} from "../../durable-objects/user-sessions/device-binding";
import { verifyProof } from "../../workers/auth/session/device-binding";
import { DbscClient } from "./dbsc-client";
import { freshUser } from "./helpers";

const stubOf = (userId: string) => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));

/** Runs `fn` with the SQLite of a fresh user's object. */
function inObject<T>(fn: (sql: SqlStorage) => Promise<T> | T, userId = freshUser()): Promise<T> {
  return runInDurableObject(stubOf(userId), (_instance: UserSessions, state) => fn(state.storage.sql));
}

const rows = (sql: SqlStorage, table: string, sessionId: string) =>
  Number(sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`, sessionId).one().n);

afterEach(() => setObjectClock(null));

describe("device binding in the session object", () => {
  it("registration: a proof of an issued challenge binds the key, once; a replay is refused", async () => {
    const client = await DbscClient.create("ES256");
    await inObject(async (sql) => {
      const { challenge } = await issueChallenge(sql, "sid_a", "registration");
      const proof = await client.registrationProof(challenge);
      const accept = (jti: string) => spendChallenge(sql, jti, "sid_a", "registration");
      const verified = await verifyProof(proof, { acceptChallenge: accept });
      expect(verified.ok).toBe(true);
      if (!verified.ok) return;
      expect(bindKey(sql, { sessionId: "sid_a", ...verified.value })).toBe("bound");
      expect(keyOf(sql, "sid_a")).toMatchObject({
        jwk: client.jwk,
        alg: "ES256",
        thumbprint: verified.value.thumbprint,
        refreshedAt: null,
      });
      // The same proof again: its challenge is spent.
      expect(await verifyProof(proof, { acceptChallenge: accept })).toEqual({ ok: false, reason: "unknown_challenge" });
      // A second key for the same session is refused: the first stays.
      const other = await DbscClient.create("RS256");
      const { challenge: again } = await issueChallenge(sql, "sid_a", "registration");
      const second = await verifyProof(await other.registrationProof(again), { acceptChallenge: accept });
      expect(second.ok).toBe(true);
      if (second.ok) expect(bindKey(sql, { sessionId: "sid_a", ...second.value })).toBe("already_bound");
      expect(keyOf(sql, "sid_a")?.jwk).toEqual(client.jwk);
    });
  });

  it("a challenge counts only for its session and purpose, and is spent by any attempt", async () => {
    await inObject(async (sql) => {
      const { challenge } = await issueChallenge(sql, "sid_a", "registration");
      expect(await spendChallenge(sql, challenge, "sid_b", "registration")).toBe(false);
      expect(await spendChallenge(sql, challenge, "sid_a", "registration")).toBe(false); // already spent
      const { challenge: refresh } = await issueChallenge(sql, "sid_a", "refresh");
      expect(await spendChallenge(sql, refresh, "sid_a", "registration")).toBe(false);
      expect(await spendChallenge(sql, "never-issued", "sid_a", "refresh")).toBe(false);
    });
  });

  it("an expired challenge is refused (object clock)", async () => {
    const start = Date.now();
    setObjectClock(() => start);
    await inObject(async (sql) => {
      const { challenge, expiresAt } = await issueChallenge(sql, "sid_a", "refresh");
      const { challenge: fresh } = await issueChallenge(sql, "sid_a", "refresh");
      expect(expiresAt).toBe(start + CHALLENGE_TTL_MS);
      setObjectClock(() => start + CHALLENGE_TTL_MS - 1);
      expect(await spendChallenge(sql, fresh, "sid_a", "refresh")).toBe(true);
      setObjectClock(() => start + CHALLENGE_TTL_MS);
      expect(await spendChallenge(sql, challenge, "sid_a", "refresh")).toBe(false);
    });
  });

  it("keeps the last few challenges per session: a late proof of the previous one still counts", async () => {
    await inObject(async (sql) => {
      const issued: string[] = [];
      for (let i = 0; i <= MAX_CHALLENGES_PER_SESSION; i++) {
        issued.push((await issueChallenge(sql, "sid_a", "refresh")).challenge);
      }
      expect(await spendChallenge(sql, issued[0]!, "sid_a", "refresh")).toBe(false); // pushed out
      for (const challenge of issued.slice(1))
        expect(await spendChallenge(sql, challenge, "sid_a", "refresh")).toBe(true);
    });
  });

  it("refresh: verified with the stored key and noted; another key is refused", async () => {
    const [client, other] = [await DbscClient.create("RS256"), await DbscClient.create("RS256")];
    const start = Date.now();
    setObjectClock(() => start);
    await inObject(async (sql) => {
      const { challenge } = await issueChallenge(sql, "sid_a", "registration");
      const registered = await verifyProof(await client.registrationProof(challenge), {
        acceptChallenge: (jti) => spendChallenge(sql, jti, "sid_a", "registration"),
      });
      if (!registered.ok) throw new Error(registered.reason);
      bindKey(sql, { sessionId: "sid_a", ...registered.value });

      const stored = keyOf(sql, "sid_a")!;
      const accept = (jti: string) => spendChallenge(sql, jti, "sid_a", "refresh");
      const { challenge: c1 } = await issueChallenge(sql, "sid_a", "refresh");
      expect(await verifyProof(await other.refreshProof(c1), { boundKey: stored, acceptChallenge: accept })).toEqual({
        ok: false,
        reason: "bad_signature",
      });
      const refreshed = await verifyProof(await client.refreshProof(c1), { boundKey: stored, acceptChallenge: accept });
      expect(refreshed).toMatchObject({ ok: true, value: { thumbprint: stored.thumbprint, jti: c1 } });
      setObjectClock(() => start + 60_000);
      noteRefresh(sql, "sid_a");
      expect(keyOf(sql, "sid_a")).toMatchObject({ boundAt: start, refreshedAt: start + 60_000 });
    });
  });

  it("revoking the session drops its key and challenges", async () => {
    const user = freshUser();
    const stub = stubOf(user);
    const id = "e".repeat(64);
    const now = Date.now();
    const span = { createdAt: now, lastSeenAt: now, expiresAt: now + 60_000, absoluteExpiresAt: now + 120_000 };
    expect(await stub.register({ id, ...span })).toMatchObject({ registered: true });
    const client = await DbscClient.create("ES256");
    await inObject(async (sql) => {
      const { challenge } = await issueChallenge(sql, id, "registration");
      const verified = await verifyProof(await client.registrationProof(challenge), {
        acceptChallenge: (jti) => spendChallenge(sql, jti, id, "registration"),
      });
      if (!verified.ok) throw new Error(verified.reason);
      bindKey(sql, { sessionId: id, ...verified.value });
      await issueChallenge(sql, id, "refresh");
      expect([rows(sql, "bound_keys", id), rows(sql, "binding_challenges", id)]).toEqual([1, 1]);
    }, user);
    await stub.revoke(id);
    await inObject((sql) => {
      expect([rows(sql, "bound_keys", id), rows(sql, "binding_challenges", id)]).toEqual([0, 0]);
      expect(keyOf(sql, id)).toBeNull();
    }, user);
  });
});
