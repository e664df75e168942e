/**
 * @module
 * Self-service session management for a signed-in person (`AuthMiddleware`
 * then `CsrfMiddleware` on every route): `GET /account/sessions` (page or
 * JSON), `POST /account/sessions/:sessionId/revoke`, `POST
 * /account/sessions/revoke-others`, `POST /account/sessions/revoke-all`
 * ("this wasn't me": every session, this one too) and `GET /account/activity`
 * (the security timeline by cursor, page or JSON). A person can only ever
 * reach sessions in their own `UserSessions` object: another user's session
 * id answers the same 404 as an unknown one, and nothing is revoked.
 */

import type { MiddlewareHandler } from "hono";
import type { Application } from "../../../client-sdk/core/application";
import { toHono } from "../../../client-sdk/core/middleware";
import { type WaitUntil, waitUntilOf } from "../../../client-sdk/core/wait-until";
import type { RevocationResult, UserSessions } from "../../../durable-objects/user-sessions";
import { IdentityClientToken } from "../identity/identity-client";
import { isSessionId } from "../ids";
import { AuthMiddleware } from "../middleware/auth";
import { currentSession } from "../middleware/context";
import { CsrfMiddleware, csrfToken } from "../middleware/csrf";
import { authErrorPage, errorPage, wantsJson } from "../pages";
import { publicOrigin } from "../provider";
import { type ResolvedSession, SessionManager } from "../session/session-manager";
import { type ActivityBody, CURSOR_PATTERN } from "./activity-view";
import { serveLiveScript } from "./live-script-route";
import { ACCOUNT_ACTIVITY_PATH, accountPage, activityPage, LIVE_SCRIPT_PATH } from "./page";
import { REVOKE_ALL_PATH, type SessionListBody, sortSessions, toSessionView } from "./view";

/** The account pages' own path; forms redirect back here. */
export const ACCOUNT_SESSIONS_PATH = "/account/sessions";
const PRIVATE = "private, no-store";
/** Events per page of `/account/activity`. */
const ACTIVITY_PAGE_SIZE = 25;

type Waiter = WaitUntil | undefined;

/**
 * Registers the account routes and the guards of everything under `/account/` (a signed-in
 * session; CSRF on every POST). Without the `USER_SESSIONS` binding there is nothing to list or
 * revoke, so the routes do not exist (404) and this answers false: mount nothing else under
 * `/account/` then (app/index.ts mounts the organization console only when this answers true).
 */
export function registerAccountRoutes<E extends { USER_SESSIONS?: DurableObjectNamespace<UserSessions> }>(
  app: Application<E>,
): boolean {
  if (!app.env.USER_SESSIONS) return false;
  const sessions = () => app.container.resolve(SessionManager);
  let guards: readonly [MiddlewareHandler, MiddlewareHandler] | undefined;
  const guard = () =>
    (guards ??= [
      toHono(new AuthMiddleware(sessions())),
      toHono(new CsrfMiddleware(sessions(), { origin: publicOrigin(app.container) })),
    ] as const);

  // The browser script, public (before the guards): the page loads it by `<script src>`.
  app.hono.get(LIVE_SCRIPT_PATH, (c) => serveLiveScript(c.req.raw));
  app.hono.use("/account/*", privateNoStore);
  app.hono.use("/account/*", (c, next) => guard()[0](c, next));
  app.hono.use("/account/*", (c, next) => guard()[1](c, next));

  app.hono.get(ACCOUNT_SESSIONS_PATH, async (c) => {
    const request = c.req.raw;
    try {
      const me = currentSession(request)!;
      const manager = sessions();
      const list = await manager.listSessions(me.user.id);
      const views = sortSessions(list.map((s) => toSessionView(s, me.sessionId, me.user.memberships)));
      if (wantsJson(request)) {
        const body: SessionListBody = { sessions: views, currentSessionId: me.sessionId };
        return Response.json(body, { headers: { Vary: "Accept" } });
      }
      const res = await accountPage({
        user: me.user,
        sessionId: me.sessionId,
        sessions: views,
        csrf: csrfToken(request),
        notice: notice(new URL(request.url)),
        origin: publicOrigin(app.container),
      });
      res.headers.set("Vary", "Accept");
      return res;
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  app.hono.get(ACCOUNT_ACTIVITY_PATH, async (c) => {
    const request = c.req.raw;
    const cursor = c.req.query("cursor") ?? null;
    if (cursor !== null && !CURSOR_PATTERN.test(cursor)) {
      return errorPage(request, 400, "invalid_cursor", "That link to older activity is not valid.");
    }
    try {
      const me = currentSession(request)!;
      const timeline = await sessions().timeline(me.user.id, { cursor, limit: ACTIVITY_PAGE_SIZE });
      if (wantsJson(request)) {
        const body: ActivityBody = { events: timeline.events, nextCursor: timeline.nextCursor };
        return Response.json(body, { headers: { Vary: "Accept" } });
      }
      const res = await activityPage({
        user: me.user,
        sessionId: me.sessionId,
        events: timeline.events,
        nextCursor: timeline.nextCursor,
        latest: cursor === null,
        csrf: csrfToken(request),
        origin: publicOrigin(app.container),
      });
      res.headers.set("Vary", "Accept");
      return res;
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  // "This wasn't me": every session of the person ends, this one too, and the provider's session with it.
  app.hono.post(REVOKE_ALL_PATH, async (c) => {
    const request = c.req.raw;
    try {
      const me = currentSession(request)!;
      if (me.impersonator) return impersonationRefused(request);
      const manager = sessions();
      // The provider's sessions behind every one of them end too (an intruder's browser included).
      const providerSessions = (await manager.listSessions(me.user.id)).flatMap((s) =>
        s.providerSessionId ? [s.providerSessionId] : [],
      );
      const result = await manager.revokeUser(me.user.id, { kind: "user" });
      endProviderSessions(
        app,
        [...providerSessions, ...(me.record.providerSessionId ? [me.record.providerSessionId] : [])],
        waitUntilOf(c),
      );
      return signedOutHere(request, null, result, manager.clearCookie());
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  app.hono.post(`${ACCOUNT_SESSIONS_PATH}/revoke-others`, async (c) => {
    const request = c.req.raw;
    try {
      const me = currentSession(request)!;
      if (me.impersonator) return impersonationRefused(request);
      const result = await sessions().revokeOtherSessions(me.user.id, me.sessionId);
      return revoked(request, result, null);
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  app.hono.post(`${ACCOUNT_SESSIONS_PATH}/:sessionId/revoke`, async (c) => {
    const request = c.req.raw;
    const sessionId = c.req.param("sessionId");
    if (!isSessionId(sessionId)) {
      return errorPage(request, 400, "invalid_session_id", "A session id is 64 lowercase hex digits.");
    }
    try {
      const me = currentSession(request)!;
      const manager = sessions();
      if (sessionId === me.sessionId) {
        const result = (await manager.revokeSessionOf(me.user.id, sessionId, "logout"))!;
        endProviderSession(app, me, waitUntilOf(c));
        return signedOutHere(request, sessionId, result, manager.clearCookie());
      }
      // An operator signed in as this person may end this session only (it takes access away).
      if (me.impersonator) return impersonationRefused(request);
      // Only this user's own object is asked: a session of someone else is simply not there.
      const result = await manager.revokeSessionOf(me.user.id, sessionId, "revoked");
      if (!result) return errorPage(request, 404, "session_not_found", "You have no active session with that id.");
      return revoked(request, result, sessionId);
    } catch (err) {
      return authErrorPage(request, err);
    }
  });
  return true;
}

/** Every answer under /account/ (pages, JSON, redirects, refusals) is private and never stored. */
const privateNoStore: MiddlewareHandler = async (c, next) => {
  await next();
  try {
    c.res.headers.set("Cache-Control", PRIVATE);
  } catch {
    const res = new Response(c.res.body, c.res);
    res.headers.set("Cache-Control", PRIVATE);
    c.res = undefined;
    c.res = res;
  }
};

function revoked(request: Request, result: RevocationResult, sessionId: string | null): Response {
  if (wantsJson(request)) {
    return Response.json({ ...(sessionId ? { sessionId } : {}), ...result, signedOut: false });
  }
  return redirect(`${ACCOUNT_SESSIONS_PATH}?signed_out=${result.revoked}`);
}

/** Revoking the session of the request is a logout: the cookie goes, and the person lands on `/`. */
function signedOutHere(
  request: Request,
  sessionId: string | null,
  result: RevocationResult,
  clearCookie: string,
): Response {
  const res = wantsJson(request)
    ? Response.json({ ...(sessionId ? { sessionId } : {}), ...result, signedOut: true })
    : redirect("/");
  res.headers.append("Set-Cookie", clearCookie);
  return res;
}

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location } });
}

/** Ends the identity provider's session too, as logout does: best effort, after the response. */
function endProviderSession<E extends object>(app: Application<E>, me: ResolvedSession, waitUntil: Waiter): void {
  endProviderSessions(app, me.record.providerSessionId ? [me.record.providerSessionId] : [], waitUntil);
}

/**
 * Ends these sessions at the identity provider too, best effort, after the response: otherwise a
 * browser still signed in there (an intruder's) gets straight back in through the hosted login.
 */
function endProviderSessions<E extends object>(app: Application<E>, ids: readonly string[], waitUntil: Waiter): void {
  if (ids.length === 0) return;
  try {
    const identity = app.container.resolve(IdentityClientToken);
    const ending = Promise.all(
      [...new Set(ids)].map((id) =>
        identity.revokeSession(id).catch((err: unknown) => {
          console.warn("gatehouse: provider session revoke failed", err instanceof Error ? err.message : err);
        }),
      ),
    );
    waitUntil?.(ending);
  } catch (err) {
    console.warn("gatehouse: no identity client to end the provider session", err instanceof Error ? err.message : err);
  }
}

function notice(url: URL): string | null {
  const count = url.searchParams.get("signed_out");
  if (count === null || !/^\d{1,5}$/.test(count)) return null;
  const n = Number(count);
  if (n === 0) return "There was no other session to sign out.";
  return `Signed out ${n} ${n === 1 ? "session" : "sessions"}.`;
}

/** An impersonated session may not sign out the person's other sessions (403 `impersonation_forbidden`). */
function impersonationRefused(request: Request): Response {
  return errorPage(
    request,
    403,
    "impersonation_forbidden",
    "While signed in as someone else you cannot sign out their other sessions.",
  );
}
