/**
 * Issue 18: one refresh at a time. A session's provider tokens stay in the user's session object;
 * `getAccessToken` hands out the access token while it is fresh, and when it is not, concurrent
 * callers (many tabs, many isolates) wait for one refresh at the provider and all get its result.
 * The provider rotates refresh tokens, so the old one is never sent again. Real SDK, real local
 * provider (its `GET /__local/token-stats` counts every refresh grant and every refused reuse).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import type { UserSessions } from "../../durable-objects/user-sessions";
import { ProviderTokens } from "../../durable-objects/user-sessions/provider-access/provider-tokens";
import { authApplication } from "../../workers/auth/app";
import { AuthService } from "../../workers/auth/worker";
import { callback, cookieHeader, idp, live, providerCode, startLogin } from "./helpers/world";

const MARGARET = "user_01MARGARETHAMILTON00000000";

interface Stats {
  refresh_calls: number;
  refused_reuse: number;
  by_session: Record<string, { refresh_calls: number; refused_reuse: number }>;
}

const stats = async (): Promise<Stats> => (await fetch(`${idp.url}/__local/token-stats`)).json() as Promise<Stats>;
const providerSessions = async (): Promise<{ id: string; status: string }[]> =>
  (
    (await (await fetch(`${idp.url}/__local/sessions?user_id=${MARGARET}`)).json()) as {
      data: { id: string; status: string }[];
    }
  ).data;

/** Margaret signed in through the real routes; her provider session id and her cookie. */
async function signIn(): Promise<{ cookie: string; providerSessionId: string }> {
  const before = new Set((await providerSessions()).map((s) => s.id));
  const { jar, authorize } = await startLogin();
  const code = ((await (await providerCode(authorize, MARGARET)).json()) as { code: string }).code;
  const res = await callback(authorize, code, jar);
  expect(res.status).toBe(302);
  const created = (await providerSessions()).find((s) => !before.has(s.id));
  return { cookie: cookieHeader(jar), providerSessionId: created!.id };
}

const objectOf = () => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(MARGARET));

/** The object's stored tokens of the session whose provider session is `sid`; `expire` makes the access token stale. */
async function tokens(sid: string, expire = false) {
  return runInDurableObject(objectOf(), (_o: UserSessions, state) => {
    if (expire) state.storage.sql.exec("UPDATE sessions SET access_expires_at = 0 WHERE provider_session_id = ?", sid);
    return state.storage.sql
      .exec<{ access_token: string; refresh_token: string; refresh_pending: number }>(
        "SELECT access_token, refresh_token, refresh_pending FROM sessions WHERE provider_session_id = ?",
        sid,
      )
      .one();
  });
}

/** Many isolates: each its own manager (its own memory), all over the same store and objects. */
const managers = () => Array.from({ length: 5 }, () => authApplication(live).container.resolve(SessionManager));

describe("getAccessToken: one refresh at a time", () => {
  it("50 concurrent requests needing a refresh make one provider call; the old refresh token is never sent again", async () => {
    const { cookie, providerSessionId: sid } = await signIn();
    const signedIn = await tokens(sid);
    expect(signedIn.refresh_token).toBeTruthy();
    // Fresh: handed out as it is, no provider call.
    const fresh = await managers()[0]!.accessTokenFor(cookie);
    expect(fresh.accessToken).toBe(signedIn.access_token);
    expect((await stats()).by_session[sid]).toBeUndefined();

    for (const round of [1, 2]) {
      const before = await tokens(sid, true);
      const isolates = managers();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => isolates[i % isolates.length]!.accessTokenFor(cookie)),
      );
      const after = await tokens(sid);
      expect(new Set(answers.map((a) => a.accessToken)), `round ${round}`).toEqual(new Set([after.access_token]));
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(after.refresh_pending).toBe(0);
      expect((await stats()).by_session[sid]).toEqual(
        expect.objectContaining({ refresh_calls: round, refused_reuse: 0 }),
      );
    }
  });

  it("a refused refresh drops the token: the person signs in again, and the provider is not asked twice", async () => {
    const { cookie, providerSessionId: sid } = await signIn();
    await fetch(`${idp.url}/__local/sessions/${sid}/revoke`, { method: "POST" });
    await tokens(sid, true);
    const [manager] = managers();
    await expect(manager!.accessTokenFor(cookie)).rejects.toMatchObject({
      code: "reauthentication_required",
      status: 401,
    });
    const calls = (await stats()).by_session[sid]?.refresh_calls ?? 0;
    await expect(manager!.accessTokenFor(cookie)).rejects.toMatchObject({ code: "reauthentication_required" });
    expect((await stats()).by_session[sid]?.refresh_calls ?? 0).toBe(calls);
    expect((await tokens(sid)).refresh_token).toBeNull();
  });

  it("a refresh cut short (the object stopped mid-call) is never retried with the same token", async () => {
    const { cookie, providerSessionId: sid } = await signIn();
    await runInDurableObject(objectOf(), (_o: UserSessions, state) => {
      state.storage.sql.exec(
        "UPDATE sessions SET access_expires_at = 0, refresh_pending = 1 WHERE provider_session_id = ?",
        sid,
      );
    });
    await expect(managers()[0]!.accessTokenFor(cookie)).rejects.toMatchObject({ code: "reauthentication_required" });
    expect((await stats()).by_session[sid]).toBeUndefined();
  });

  it("a provider that answers without taking the token (5xx, 401/403 on our key, 429) keeps it; a refusal of it drops it", async () => {
    const stub = env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(`user_tokens_${Date.now()}`));
    const cases: [number, string, boolean][] = [
      [503, "provider_unavailable", true],
      [429, "provider_unavailable", true],
      [401, "provider_unavailable", true],
      [403, "provider_unavailable", true],
      [400, "reauthentication_required", false],
    ];
    for (const [status, reason, kept] of cases) {
      const outcome = await runInDurableObject(stub, async (_o: UserSessions, state) => {
        const sql = state.storage.sql;
        const now = Date.now();
        sql.exec("DELETE FROM sessions WHERE id = 's1'");
        sql.exec(
          `INSERT INTO sessions (id, created_at, last_seen_at, expires_at, absolute_expires_at, refresh_token, refresh_pending)
           VALUES ('s1', ?, ?, ?, ?, 'rt_old', 0)`,
          now,
          now,
          now + 3_600_000,
          now + 3_600_000,
        );
        const failing = new ProviderTokens(
          sql,
          () => () => async () => {
            throw Object.assign(new Error("refused"), { cause: { status } });
          },
          {},
        );
        const answer = await failing.accessToken("s1", now);
        const row = sql
          .exec<{ refresh_token: string | null }>("SELECT refresh_token FROM sessions WHERE id = 's1'")
          .one();
        return { answer, token: row.refresh_token };
      });
      expect(outcome.answer, String(status)).toEqual({ ok: false, reason });
      expect(outcome.token, String(status)).toBe(kept ? "rt_old" : null);
    }
  });

  it("no session, no token; over RPC the answer says why", async () => {
    const [manager] = managers();
    await expect(manager!.accessTokenFor(null)).rejects.toMatchObject({ code: "unauthenticated", status: 401 });
    const { cookie } = await signIn();
    const service = new AuthService({ waitUntil() {}, passThroughOnException() {}, props: {} } as never, live);
    expect(await service.accessToken(cookie)).toMatchObject({ ok: true, accessToken: expect.any(String) });
    expect(await service.accessToken("gh_session=nope")).toEqual({ ok: false, reason: "unauthenticated" });
  });
});
