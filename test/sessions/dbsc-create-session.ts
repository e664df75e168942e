/**
 * The browser's side of a registration answer, written from the W3C text (`w3c/webappsec-dbsc`
 * spec.bs @ d346811: `#algo-create-session`, `#algo-url-in-scope`, `#well-known`) plus the stricter
 * checks Chrome adds, as cited in /work/notes/dbsc-research.md §2.4 (session.cc `CreateIfValid`: a
 * scope origin with a path or a trailing slash; session_inclusion_rules.cc `IsIncludeSiteAllowed`;
 * cookie_craving.cc: only Domain, Path, Secure, HttpOnly, SameSite). No public suffix list here: the
 * test names the registrable domain. Imports nothing of Gatehouse; a test oracle.
 */

export const WELL_KNOWN_PATH = "/.well-known/device-bound-sessions";

export interface CreatedSession {
  id: string;
  refreshUrl: string;
  origin: string;
  includeSite: boolean;
  /** The well-known URL fetched (a subdomain registered a site-wide session), else null. */
  wellKnownFetched: string | null;
}

export type CreateSessionResult = { ok: true; session: CreatedSession } | { ok: false; reason: string };

export interface CreateSessionInput {
  /** The registration URL the answer came from (the spec's destination). */
  destination: string;
  /** The answer's body, as text. */
  body: string;
  /** The registrable domain (eTLD+1) of destination's host. */
  registrableDomain: string;
  /** Fetches the well-known URL with credentials omitted; called only when the spec says so. */
  fetchWellKnown(url: string): Promise<Response>;
}

const ALLOWED_ATTRIBUTES = new Set(["domain", "path", "secure", "httponly", "samesite"]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Same site (schemeful) under the given registrable domain. */
function sameSite(a: URL, b: URL, site: string): boolean {
  const under = (host: string) => host === site || host.endsWith(`.${site}`);
  return a.protocol === b.protocol && under(a.hostname) && under(b.hostname);
}

/** `#algo-create-session` for a registration (session id null), with Chrome's extra refusals. */
export async function createSession(input: CreateSessionInput): Promise<CreateSessionResult> {
  const fail = (reason: string): CreateSessionResult => ({ ok: false, reason });
  const destination = new URL(input.destination);
  let json: unknown;
  try {
    json = JSON.parse(input.body);
  } catch {
    return fail("body is not JSON");
  }
  if (!isRecord(json)) return fail("body is not a JSON object");
  if (typeof json.session_identifier !== "string" || !json.session_identifier) return fail("session_identifier");
  if (json.continue === false) return fail("continue: false");
  const scope = json.scope;
  if (!isRecord(scope) || typeof scope.include_site !== "boolean") return fail("scope.include_site missing");
  let origin: URL;
  if (scope.origin === undefined) origin = new URL(destination.origin);
  else {
    if (typeof scope.origin !== "string") return fail("scope.origin not a string");
    try {
      origin = new URL(scope.origin);
    } catch {
      return fail("scope.origin invalid");
    }
    if (scope.origin.trim().endsWith("/") || origin.pathname !== "/") return fail("scope.origin contains a path");
  }
  const refreshUrl = json.refresh_url === undefined ? destination : new URL(String(json.refresh_url), destination.href);
  if (refreshUrl.protocol !== "https:" && refreshUrl.hostname !== "localhost") return fail("refresh URL not secure");
  if (!sameSite(origin, destination, input.registrableDomain)) return fail("scope origin not same site");
  if (!sameSite(refreshUrl, destination, input.registrableDomain)) return fail("refresh URL not same site");
  const credentials = json.credentials;
  if (!Array.isArray(credentials) || credentials.length === 0) return fail("no credentials");
  for (const credential of credentials) {
    if (!isRecord(credential) || credential.type !== "cookie" || typeof credential.name !== "string") {
      return fail("credential is not a cookie");
    }
    const attributes = typeof credential.attributes === "string" ? credential.attributes : "";
    for (const part of attributes.split(";")) {
      const name = part.split("=")[0]!.trim().toLowerCase();
      if (name && !ALLOWED_ATTRIBUTES.has(name)) return fail(`credential attribute ${name}`);
    }
  }
  let wellKnownFetched: string | null = null;
  if (scope.include_site) {
    // The origin's host must be the site itself (Chrome: no eTLD+1, or another host, is refused too).
    if (origin.hostname !== input.registrableDomain) return fail("include_site origin is not the site");
    if (destination.hostname !== input.registrableDomain) {
      const wellKnown = new URL(destination.href);
      wellKnown.hostname = input.registrableDomain;
      wellKnown.pathname = WELL_KNOWN_PATH;
      wellKnownFetched = wellKnown.href;
      const res = await input.fetchWellKnown(wellKnown.href);
      if (res.status !== 200) return fail(`well-known answered ${res.status}`);
      let doc: unknown;
      try {
        doc = JSON.parse(await res.text());
      } catch {
        return fail("well-known is not JSON");
      }
      if (!isRecord(doc) || !Array.isArray(doc.registering_origins))
        return fail("well-known has no registering_origins");
      if (!doc.registering_origins.includes(destination.origin)) return fail("registration origin not registering");
    }
  }
  return {
    ok: true,
    session: {
      id: json.session_identifier,
      refreshUrl: refreshUrl.href,
      origin: origin.origin,
      includeSite: scope.include_site,
      wellKnownFetched,
    },
  };
}

/** `#algo-url-in-scope` without scope rules: site-wide sessions cover the site, others their origin. */
export function inScope(session: CreatedSession, url: string, registrableDomain: string): boolean {
  const target = new URL(url);
  const origin = new URL(session.origin);
  const covered = session.includeSite ? sameSite(target, origin, registrableDomain) : target.origin === origin.origin;
  if (!covered) return false;
  const refresh = new URL(session.refreshUrl);
  return !(target.origin === refresh.origin && target.pathname === refresh.pathname);
}
