/**
 * The rotating transmitter, a stand-in written from the texts (not from Gatehouse's code): SETs
 * (RFC 8417 §2.2, `sub_id` per SSF 1.0) signed with the key a test names, `iat` from the receiver's
 * test clock, pushed per RFC 8935 §2.1; and its JWKS host (jwks-host.js), driven through its
 * control API.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { importJWK, type JWK, SignJWT } from "jose";
import { SSF_EVENTS } from "../../client-sdk/protocol/shared-signals";
import { publicOf } from "./keys";
import worker, { AUDIENCE, clock, ISS_SUB_ISSUER, TRANSMITTER } from "./worker";

const ENDPOINT = "https://auth.example.com/ssf/events";
const CONTROL = "https://jwks.control";

/** A CAEP session-revoked SET about every session of `userId` (an `iss_sub` subject), signed with `key`. */
export async function revokeAllOf(userId: string, key: JWK): Promise<string> {
  const claims = {
    iss: TRANSMITTER,
    aud: AUDIENCE,
    iat: Math.floor(clock.now / 1000),
    jti: crypto.randomUUID(),
    sub_id: { format: "iss_sub", iss: ISS_SUB_ISSUER, sub: userId },
    events: { [SSF_EVENTS.sessionRevoked]: {} },
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: key.kid as string, typ: "secevent+jwt" })
    .sign(await importJWK(key, "ES256"));
}

/** Pushes a SET as RFC 8935 §2.1 says; resolves once the worker's background work is done. */
export async function push(set: string): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(ENDPOINT, {
    method: "POST",
    headers: { "Content-Type": "application/secevent+jwt", Accept: "application/json" },
    body: set,
  });
  const res = await worker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** The JWKS host publishes the public halves of `keys` from now on. */
export async function publish(...keys: JWK[]): Promise<void> {
  const res = await fetch(`${CONTROL}/publish`, { method: "POST", body: JSON.stringify({ keys: keys.map(publicOf) }) });
  if (res.status !== 204) throw new Error(`jwks host: publish answered ${res.status}`);
}

/** The JWKS host answers `status` to every request for the set (0: it serves the set again). */
export async function failWith(status: number): Promise<void> {
  const res = await fetch(`${CONTROL}/fail?status=${status}`, { method: "POST" });
  if (res.status !== 204) throw new Error(`jwks host: fail answered ${res.status}`);
}

export interface JwksRequest {
  method: string;
  url: string;
  accept: string | null;
  status: number;
}

/** Every request the JWKS host got for the set, in order. */
export async function jwksRequests(): Promise<JwksRequest[]> {
  return (await fetch(`${CONTROL}/requests`)).json();
}
