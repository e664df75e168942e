/**
 * @module
 * The session instructions a registration or refresh answer carries (spec
 * `#format-session-instructions`), built so Chrome's stricter parser accepts them: `include_site`
 * always present, a non-empty `credentials`, cookie attributes limited to Domain, Path, Secure,
 * HttpOnly and SameSite (Chrome refuses Max-Age and Expires), and a bare origin without a trailing
 * slash. A wrong option is a programming error and throws; nothing here reads a request.
 */
import type { ScopeRule, SessionConfig } from "../../../../client-sdk/protocol/device-binding";

/** The bound cookie as the instructions describe it; the `Set-Cookie` must carry the same attributes. */
export interface BoundCookieSpec {
  name: string;
  /** Default `/`. */
  path?: string;
  /** Omit for a host-only cookie (required with the `__Host-` prefix). */
  domain?: string;
  /** Default `Lax`. */
  sameSite?: "Strict" | "Lax" | "None";
}

export interface SessionConfigOptions {
  sessionId: string;
  /** Where the browser refreshes (relative or absolute, same-site). */
  refreshUrl: string;
  /** A bare origin (`https://app.example.com`); omitted, the browser uses the answering URL's origin. */
  origin?: string;
  /** Whether the session covers the whole site (only allowed when the origin's host is the eTLD+1). */
  includeSite: boolean;
  scopeRules?: ScopeRule[];
  cookies: BoundCookieSpec[];
  allowedRefreshInitiators?: string[];
}

/** `Path=/; Secure; HttpOnly; SameSite=Lax` (and `Domain=` when given): the same string for both uses. */
export function boundCookieAttributes(cookie: BoundCookieSpec): string {
  const parts: string[] = [];
  if (cookie.domain !== undefined) {
    if (cookie.name.startsWith("__Host-")) throw new TypeError("session config: a __Host- cookie has no Domain");
    if (!/^[A-Za-z0-9.-]+$/.test(cookie.domain)) throw new TypeError("session config: invalid cookie domain");
    parts.push(`Domain=${cookie.domain}`);
  }
  const path = cookie.path ?? "/";
  if (!/^\/[!#-:<-~]*$/.test(path)) throw new TypeError("session config: invalid cookie path");
  if (cookie.name.startsWith("__Host-") && path !== "/")
    throw new TypeError("session config: a __Host- cookie has Path=/");
  parts.push(`Path=${path}`, "Secure", "HttpOnly", `SameSite=${cookie.sameSite ?? "Lax"}`);
  return parts.join("; ");
}

/** The session instructions for `options`; throws a TypeError on an option Chrome would refuse. */
export function buildSessionConfig(options: SessionConfigOptions): SessionConfig {
  if (!options.sessionId) throw new TypeError("session config: session_identifier is required");
  if (options.cookies.length === 0) throw new TypeError("session config: at least one credential is required");
  const scope: SessionConfig["scope"] = { include_site: options.includeSite };
  if (options.origin !== undefined) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(options.origin);
    } catch {}
    if (!parsed || parsed.origin !== options.origin) {
      throw new TypeError("session config: origin must be a bare origin (no path, no trailing slash)");
    }
    scope.origin = options.origin;
  }
  if (options.scopeRules?.length) scope.scope_specification = options.scopeRules;
  const config: SessionConfig = {
    session_identifier: options.sessionId,
    refresh_url: options.refreshUrl,
    scope,
    credentials: options.cookies.map((cookie) => {
      if (!/^[!#-'*+\-.0-9A-Z^-z|~]+$/.test(cookie.name)) throw new TypeError("session config: invalid cookie name");
      return { type: "cookie" as const, name: cookie.name, attributes: boundCookieAttributes(cookie) };
    }),
  };
  if (options.allowedRefreshInitiators?.length) config.allowed_refresh_initiators = options.allowedRefreshInitiators;
  return config;
}

/** Instructions that end the session at refresh (`continue: false`; Chrome still needs the id). */
export function endSessionConfig(sessionId: string): Pick<SessionConfig, "session_identifier" | "continue"> {
  return { session_identifier: sessionId, continue: false };
}
