/**
 * @module
 * `POST /ssf/events`: push delivery of SETs from configured upstream transmitters (RFC 8935).
 * The body is one SET (`Content-Type: application/secevent+jwt`, §2.1); 202 Accepted once it is
 * verified and acted on (§2.2); 400 with `{ "err", "description" }` (§2.3, codes of §2.4) when it
 * is refused, the description fixed per check (nothing about keys, claims or internals). A SET
 * about nobody we know, or of an event type we do not act on, is acknowledged (202) and logged.
 * Only registered when `ssf.transmitters` is set.
 */
import type { Application } from "../../../../client-sdk/core/application";
import { readBoundedText } from "../../../../client-sdk/core/body";
import { waitUntilOf } from "../../../../client-sdk/core/wait-until";
import { routeLimiterFor } from "../../limits";
import type { AuthEnv } from "../../provider";
import { SessionManager } from "../../session/session-manager";
import { actOn, recordRefusal } from "./act";
import type { ResolvedTransmitter } from "./options";
import { KeysUnavailable } from "./remote-keys";
import { SeenTokens } from "./replay";
import { DEFAULT_MAX_AGE_SECONDS, DEFAULT_SKEW_SECONDS, type PushErrorCode, verifySet } from "./verify";

export const SSF_EVENTS_PATH = "/ssf/events";
/** A SET is a few hundred bytes; 64 KiB leaves room for large event payloads and nothing more. */
const MAX_BODY_BYTES = 64 * 1024;
const SET_MEDIA_TYPE = "application/secevent+jwt";

export interface SsfReceiverRouteOptions {
  /** Default `/ssf/events`. */
  path?: string;
  /** Clock (ms), for tests. Default `Date.now`. */
  clock?: () => number;
}

/** RFC 8935 §2.3: 400, a JSON object with `err` and `description`. */
export function pushError(err: PushErrorCode, description: string): Response {
  return Response.json({ err, description }, { status: 400, headers: { "Cache-Control": "no-store" } });
}

function unavailable(): Response {
  return new Response(null, { status: 503, headers: { "Retry-After": "30", "Cache-Control": "no-store" } });
}

export function registerSsfReceiver<E extends AuthEnv>(
  app: Application<E>,
  transmitters: readonly ResolvedTransmitter[],
  options: SsfReceiverRouteOptions = {},
): void {
  if (transmitters.length === 0) return;
  const clock = options.clock ?? Date.now;
  const path = options.path ?? SSF_EVENTS_PATH;
  const limiter = routeLimiterFor(app, "webhooks");
  if (limiter) app.hono.use(path, limiter);
  app.hono.post(path, async (c) => {
    const request = c.req.raw;
    const env = app.env;
    if (!env.USER_SESSIONS || !env.SESSIONS) {
      console.error("gatehouse: a SET arrived at /ssf/events, but USER_SESSIONS or SESSIONS is not bound");
      return unavailable();
    }
    const type = (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== SET_MEDIA_TYPE) {
      return pushError("invalid_request", `The request must carry one SET as ${SET_MEDIA_TYPE}`);
    }
    const token = await readBoundedText(request, MAX_BODY_BYTES);
    if (token === null) return pushError("invalid_request", "The request body is not a SET of acceptable size");
    let verified: Awaited<ReturnType<typeof verifySet>>;
    try {
      verified = await verifySet(token.trim(), transmitters, { now: clock() });
    } catch (err) {
      if (!(err instanceof KeysUnavailable)) throw err;
      console.error("gatehouse: a transmitter's JWKS could not be fetched; the SET was not checked");
      return unavailable();
    }
    const sessions = app.container.resolve(SessionManager);
    if (!verified.ok) {
      console.warn(`gatehouse: refused a pushed SET: ${verified.err}`);
      // Signed by its transmitter but too old or for another audience: its person hears of it.
      const signed = verified.signed;
      if (signed) await recordRefusal(signed.set, signed.transmitter, sessions, signed.outcome).catch(() => {});
      return pushError(verified.err, verified.description);
    }
    const { set, transmitter } = verified;
    const seen = new SeenTokens(env.SESSIONS, DEFAULT_MAX_AGE_SECONDS + 2 * DEFAULT_SKEW_SECONDS);
    if (await seen.seen(set.iss, set.jti)) {
      console.warn(`gatehouse: refused a replayed SET from ${transmitter.label}`);
      await recordRefusal(set, transmitter, sessions, "replayed").catch(() => {});
      return pushError("invalid_request", 'The SET "jti" was already received');
    }
    try {
      const acted = await actOn(set, transmitter, sessions);
      for (const a of acted) console.info(`gatehouse: SET from ${transmitter.label}: ${a.event}: ${a.outcome}`);
    } catch (err) {
      // Not the transmitter's fault: forget the jti so its retry gets through.
      console.error("gatehouse: could not act on a SET", err instanceof Error ? err.name : "");
      const forget = seen.forget(set.iss, set.jti).catch(() => {});
      (waitUntilOf(c) ?? ((p: Promise<unknown>) => void p))(forget);
      return unavailable();
    }
    return new Response(null, { status: 202, headers: { "Cache-Control": "no-store" } });
  });
}
