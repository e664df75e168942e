/**
 * A reference SSF transmitter written from the texts, not from Gatehouse's code: a SET (RFC 8417
 * §2.2: `iss`, `aud`, `iat`, `jti`, `events`; SSF 1.0: `sub_id` at the top level) signed as a JWS
 * with `typ: secevent+jwt` (RFC 8417 §2.3), pushed per RFC 8935 §2.1 (POST, body the compact JWS,
 * `Content-Type: application/secevent+jwt`, `Accept: application/json`). Options let a test break
 * exactly one thing.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { importJWK, type JWK, SignJWT } from "jose";
import { PRIVATE_KEYS } from "./keys";
import worker, { AUDIENCE, TRANSMITTER } from "./worker";

export const ENDPOINT = "https://auth.example.com/ssf/events";

export interface SetOptions {
  key?: JWK;
  alg?: string;
  kid?: string;
  typ?: string | null;
  iss?: string;
  aud?: string | string[];
  /** Seconds since the epoch. */
  iat?: number;
  jti?: string;
  subId?: unknown;
}

let counter = 0;

/** A signed SET with these events; defaults give a valid one from the configured transmitter. */
export async function makeSet(events: Record<string, Record<string, unknown>>, o: SetOptions = {}): Promise<string> {
  const jwk = o.key ?? PRIVATE_KEYS.ec;
  const alg = o.alg ?? (jwk.alg as string);
  const header: Record<string, unknown> = { alg, kid: o.kid ?? jwk.kid };
  if (o.typ !== null) header.typ = o.typ ?? "secevent+jwt";
  const claims: Record<string, unknown> = {
    iss: o.iss ?? TRANSMITTER,
    aud: o.aud ?? AUDIENCE,
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    jti: o.jti ?? `set-${Date.now().toString(36)}-${++counter}-${crypto.randomUUID()}`,
    events,
  };
  if (o.subId !== undefined) claims.sub_id = o.subId;
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(await importJWK(jwk, alg));
}

/** An unsecured JWT (`alg: none`, RFC 7519 §6): header and payload, empty signature. */
export function unsecuredSet(events: Record<string, Record<string, unknown>>, subId: unknown): string {
  const b64 = (v: unknown) => btoa(JSON.stringify(v)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: TRANSMITTER, aud: AUDIENCE, iat: now, jti: crypto.randomUUID(), sub_id: subId, events };
  return `${b64({ alg: "none", typ: "secevent+jwt" })}.${b64(claims)}.`;
}

/** Pushes a SET as RFC 8935 §2.1 says; resolves once the worker's background work is done. */
export async function push(body: string, contentType = "application/secevent+jwt"): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(ENDPOINT, {
    method: "POST",
    headers: { "Content-Type": contentType, Accept: "application/json" },
    body,
  });
  const res = await worker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
