/**
 * Fixtures for the account-page tests: sessions made by the real SessionManager
 * over the local KV and UserSessions namespace, requests through the auth
 * worker's fetch handler (cookies, CSRF token, Origin as a browser sends them),
 * and live tabs opened through its /parties route.
 */
import { env, exports } from "cloudflare:workers";
import { type IdentityUser, SessionManager } from "gatehouse-workers/auth";
import type { SessionLocation } from "gatehouse-workers/client";
import { openTab as openSessionTab, type Tab } from "../sessions/helpers";
import { hasLiveRecord } from "../support/kv-records";

export const ORIGIN = "https://auth.example.com";
export const CSRF_COOKIE = "__Host-gh_csrf";

export function manager(): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
}

let counter = 0;
/** A fresh user id per test, so objects never share state across tests. */
export function freshUser(): string {
  return `user_acct_${Date.now().toString(36)}_${++counter}`;
}

function identity(id: string): IdentityUser {
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Test",
    lastName: id,
    memberships: [
      { organizationId: "org_acme", organizationSlug: "acme", role: "admin" },
      { organizationId: "org_globex", organizationSlug: "globex", role: "member" },
    ],
  };
}

export interface Signed {
  userId: string;
  sessionId: string;
  /** `name=value` of the session cookie. */
  cookie: string;
}

export async function signIn(
  userId: string,
  meta: { userAgent?: string; ip?: string; organizationId?: string; location?: SessionLocation } = {},
): Promise<Signed> {
  const { sessionId, response } = await manager().createSession(
    identity(userId),
    meta.organizationId ?? "org_acme",
    meta,
  );
  return { userId, sessionId, cookie: response.headers.get("Set-Cookie")!.split(";")[0]! };
}

/** A request through the auth worker's fetch handler; redirects are returned, not followed. */
export function call(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  return exports.default.fetch(`${ORIGIN}${path}`, { redirect: "manual", ...init });
}

/** The parts of the account page a test looks at, read with HTMLRewriter. */
export interface PageFacts {
  res: Response;
  html: string;
  /** The CSRF token in the page (`data-csrf`), and the `name=value` cookie it belongs to. */
  csrf: string;
  csrfCookie: string;
  /** Listed sessions in order: id, marked current or not, the form it has (if any). */
  items: { id: string; current: boolean }[];
  /** Every form: its action and its `_csrf` value. */
  forms: { action: string; csrf: string | null }[];
}

/** GETs /account/sessions as `session` (HTML) and reads the page. */
export async function openPage(session: Signed, path = "/account/sessions"): Promise<PageFacts> {
  const res = await call(path, { headers: { Cookie: session.cookie, Accept: "text/html" } });
  const html = await res.clone().text();
  const facts = { csrf: "", items: [] as PageFacts["items"], forms: [] as PageFacts["forms"] };
  await new HTMLRewriter()
    .on("#account", {
      element: (e) => {
        facts.csrf = e.getAttribute("data-csrf") ?? "";
      },
    })
    .on("li[data-session-id]", {
      element: (e) => {
        facts.items.push({ id: e.getAttribute("data-session-id")!, current: e.hasAttribute("aria-current") });
      },
    })
    .on("form", {
      element: (e) => {
        facts.forms.push({ action: e.getAttribute("action") ?? "", csrf: null });
      },
    })
    .on("form input[name=_csrf]", {
      element: (e) => {
        facts.forms.at(-1)!.csrf = e.getAttribute("value");
      },
    })
    .transform(new Response(html))
    .text();
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${CSRF_COOKIE}=`));
  const csrfCookie = setCookie ? setCookie.split(";")[0]! : "";
  return { res, html, ...facts, csrfCookie };
}

/** POSTs a form as a browser would: session + CSRF cookies, `_csrf` field, same Origin. */
export function postForm(
  path: string,
  session: Signed,
  page: Pick<PageFacts, "csrf" | "csrfCookie">,
  options: { token?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const token = options.token === undefined ? page.csrf : options.token;
  const body = new URLSearchParams(token === null ? {} : { _csrf: token });
  return call(path, {
    method: "POST",
    body,
    headers: {
      Cookie: [session.cookie, page.csrfCookie].filter(Boolean).join("; "),
      Origin: ORIGIN,
      "Sec-Fetch-Site": "same-origin",
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "text/html",
      ...options.headers,
    },
  });
}

/** POSTs as a JSON client: `X-CSRF-Token` header, `Accept: application/json`. */
export function postJson(path: string, session: Signed, page: Pick<PageFacts, "csrf" | "csrfCookie">) {
  return call(path, {
    method: "POST",
    headers: {
      Cookie: [session.cookie, page.csrfCookie].join("; "),
      Origin: ORIGIN,
      "X-CSRF-Token": page.csrf,
      Accept: "application/json",
    },
  });
}

/** True while KV holds a live record (a revoked session's is replaced by a mark naming its user). */
export const kvHas = (sessionId: string) => hasLiveRecord(env.SESSIONS, sessionId);

export const stubOf = (userId: string) => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));

export { staysOpen, type Tab, withTimeout } from "../sessions/helpers";

/** Opens a live tab through the auth worker's route, as the page's partysocket does. */
export function openTab(session: Signed): Promise<Tab> {
  return openSessionTab(session.userId, session.cookie);
}
