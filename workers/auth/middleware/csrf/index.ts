/**
 * @module
 * `CsrfMiddleware` (spec): signed double-submit. The CSRF cookie holds
 * `<nonce>.<HMAC("csrf|" + sessionId + "|" + nonce)>`, so a token only works
 * for the session it was issued to (or what `bindTo` names, e.g. a console
 * session); on POST, PUT, PATCH and DELETE the `_csrf` form field or
 * `X-CSRF-Token` header must equal it (constant time), and a present `Origin` /
 * `Sec-Fetch-Site` must not be cross-site. It never changes state on GET; it
 * only issues tokens there.
 */
import { getRequestValue, type Middleware, type Next, setRequestValue } from "../../../../client-sdk/core/middleware";
import { buildSetCookie, parseCookie } from "../../cookies";
import { type RandomSource, randomToken, timingSafeEqual } from "../../crypto";
import { errorPage } from "../../pages";
import type { SessionManager } from "../../session/session-manager";
import { CsrfTokenKey, currentSession } from "../context";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

export interface CsrfOptions {
  /**
   * This site's public origin (the auth worker passes its callback URL's): an `Origin` equal to it
   * is ours. Default: the request's own origin, which its `Host` decides, so a request naming
   * another host would make that host's `Origin` count as ours; pass it when you know it.
   */
  origin?: string;
  /** Other origins allowed to post (e.g. `https://app.example.com`). This site's own always is. */
  allowedOrigins?: string[];
  /**
   * What a token is bound to when the request belongs to something other than the person's
   * session (the admin console's break-glass session): a string wins, null falls back to the
   * session. Distinct values must never collide with a session id (prefix them).
   */
  bindTo?: (request: Request) => Promise<string | null>;
  random?: RandomSource;
}

export type CsrfFailure = "cross_site" | "origin_mismatch" | "missing_cookie" | "missing_token" | "token_mismatch";

const REASONS: Record<CsrfFailure, string> = {
  cross_site: "The form was sent from another site.",
  origin_mismatch: "The form was sent from an origin this site does not accept.",
  missing_cookie: "Your security cookie is missing or expired. Reload the page and try again.",
  missing_token: "The form has no security token. Reload the page and try again.",
  token_mismatch: "The form's security token does not match. Reload the page and try again.",
};

export class CsrfMiddleware implements Middleware {
  readonly #sessions: SessionManager;
  readonly #origin: string | undefined;
  readonly #allowed: Set<string>;
  readonly #bindTo: CsrfOptions["bindTo"];
  readonly #random: RandomSource | undefined;
  readonly cookieName: string;

  constructor(sessions: SessionManager, options: CsrfOptions = {}) {
    this.#sessions = sessions;
    this.#origin = options.origin;
    this.#allowed = new Set(options.allowedOrigins ?? []);
    this.#bindTo = options.bindTo;
    this.#random = options.random;
    this.cookieName = `${sessions.config.secure ? "__Host-" : ""}gh_csrf`;
  }

  async handle(request: Request, next: Next): Promise<Response> {
    const binding = await this.#binding(request);
    const cookie = parseCookie(request.headers.get("Cookie") ?? "")[this.cookieName];
    const cookieValid = cookie !== undefined && (await this.#verify(cookie, binding));

    if (UNSAFE.has(request.method)) {
      const failure = await this.#check(request, cookieValid ? cookie : undefined);
      if (failure) return errorPage(request, 403, "csrf_failed", REASONS[failure], { title: "Request refused" });
      setRequestValue(request, CsrfTokenKey, cookie!);
      return next();
    }

    // Safe method: make sure the browser holds a token bound to its current session (or binding).
    if (cookieValid) {
      setRequestValue(request, CsrfTokenKey, cookie);
      return next();
    }
    const token = await this.#issue(binding);
    setRequestValue(request, CsrfTokenKey, token);
    const res = await next();
    const out = new Response(res.body, res);
    out.headers.append(
      "Set-Cookie",
      buildSetCookie(this.cookieName, token, { path: "/", secure: this.#sessions.config.secure, sameSite: "Strict" }),
    );
    return out;
  }

  async #check(request: Request, cookie: string | undefined): Promise<CsrfFailure | null> {
    const site = request.headers.get("Sec-Fetch-Site");
    if (site === "cross-site") return "cross_site";
    const origin = request.headers.get("Origin");
    const self = this.#origin ?? new URL(request.url).origin;
    if (origin !== null && origin !== self && !this.#allowed.has(origin)) return "origin_mismatch";
    if (!cookie) return "missing_cookie";
    // Spec: the `_csrf` field *or* the header must equal the cookie; a stale header (a script's
    // default) must not hide a form's good field. The body is read only when the header fails.
    const header = request.headers.get("X-CSRF-Token");
    if (header && timingSafeEqual(header, cookie)) return null;
    const field = await formToken(request);
    if (field && timingSafeEqual(field, cookie)) return null;
    return header || field ? "token_mismatch" : "missing_token";
  }

  /** What this request's token is bound to: `bindTo`'s answer, else the session id, else "" (nobody). */
  async #binding(request: Request): Promise<string> {
    const bound = this.#bindTo ? await this.#bindTo(request) : null;
    if (bound !== null) return bound;
    const current = currentSession(request)?.sessionId;
    if (current !== undefined) return current;
    return (await this.#sessions.sessionIdFromCookieHeader(request.headers.get("Cookie"))) ?? "";
  }

  async #issue(binding: string): Promise<string> {
    const nonce = randomToken(18, this.#random);
    return `${nonce}.${await this.#sessions.signer.sign(`csrf|${binding}|${nonce}`)}`;
  }

  async #verify(token: string, binding: string): Promise<boolean> {
    const dot = token.indexOf(".");
    if (dot <= 0 || token.length > 200) return false;
    return this.#sessions.signer.verify(`csrf|${binding}|${token.slice(0, dot)}`, token.slice(dot + 1));
  }
}

/** The `_csrf` field of a form body, read from a clone so the handler still gets the body. */
async function formToken(request: Request): Promise<string | null> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!FORM_TYPES.some((t) => type.startsWith(t))) return null;
  try {
    const value = (await request.clone().formData()).get("_csrf");
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The CSRF token for this request (set by `CsrfMiddleware`), to put in a form's `_csrf` field. */
export function csrfToken(request: Request): string {
  const token = currentCsrf(request);
  if (!token) throw new Error("csrfToken(): CsrfMiddleware did not run for this request");
  return token;
}

function currentCsrf(request: Request): string | undefined {
  return getRequestValue(request, CsrfTokenKey);
}
