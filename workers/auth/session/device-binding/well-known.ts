/**
 * @module
 * The site's `/.well-known/device-bound-sessions` (spec `#well-known`): the origins allowed to
 * register a session for the whole site from a subdomain. Chrome fetches it from the site itself
 * (`https://<eTLD+1>`, the registration URL's scheme and port) without credentials, before it
 * accepts `include_site: true` from `auth.<site>`, and requires the registration URL's serialized
 * origin to be listed (`registration_fetcher.cc`, `session_json_utils.cc` `ParseWellKnownJson`).
 * Pure: the origins come from configuration, never from a request.
 */
import type { DeviceBoundSessionsWellKnown } from "../../../../client-sdk/protocol/device-binding";

export interface DeviceBoundSessionsWellKnownOptions {
  /**
   * Origins whose registration endpoint may create a site-wide session: the auth worker's public
   * origin (`https://auth.example.com`). Bare origins, compared by the browser as serialized.
   */
  registeringOrigins: readonly string[];
}

/** How long a browser or cache may keep the document: it changes only when the auth worker moves. */
export const WELL_KNOWN_MAX_AGE_SECONDS = 3600;

/**
 * The JSON a site serves at `/.well-known/device-bound-sessions` (`DBSC_WELL_KNOWN_PATH`), for
 * the auth worker's own route or a team's apex worker. `relying_origins` is empty: Gatehouse
 * shares keys with no other site (federation), and `provider_origin`, the key of a relying party's
 * document, is never set. Throws a TypeError on an entry that is not a bare http(s) origin.
 *
 * @example
 * ```ts
 * if (url.pathname === DBSC_WELL_KNOWN_PATH)
 *   return Response.json(deviceBoundSessionsWellKnown({ registeringOrigins: ["https://auth.example.com"] }),
 *     { headers: { "Cache-Control": "public, max-age=3600" } });
 * ```
 */
export function deviceBoundSessionsWellKnown(
  options: DeviceBoundSessionsWellKnownOptions,
): DeviceBoundSessionsWellKnown {
  if (options.registeringOrigins.length === 0) {
    throw new TypeError("device-bound-sessions well-known: registeringOrigins needs at least one origin");
  }
  const registering: string[] = [];
  for (const entry of options.registeringOrigins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(entry);
    } catch {}
    // Chrome compares `url::Origin::Serialize()`: lower-case, no default port, no trailing slash.
    if (!parsed || parsed.origin !== entry || !/^https?:$/.test(parsed.protocol)) {
      throw new TypeError(`device-bound-sessions well-known: ${JSON.stringify(entry)} is not a bare origin`);
    }
    if (!registering.includes(entry)) registering.push(entry);
  }
  return { registering_origins: registering, relying_origins: [] };
}

/** The document as an answer: JSON, no cookies, cacheable by anyone (it names nothing private). */
export function wellKnownResponse(document: DeviceBoundSessionsWellKnown): Response {
  return Response.json(document, {
    headers: { "Cache-Control": `public, max-age=${WELL_KNOWN_MAX_AGE_SECONDS}` },
  });
}
