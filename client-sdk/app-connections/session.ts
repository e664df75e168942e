/**
 * @module
 * The request's session as app connections see it: resolved over the auth service binding (a
 * binding name, default `AUTH`, or a resolver such as an `AuthServiceClient`), or the answer to
 * send instead (401 without a session, 503 when the auth service did not answer). Shared by
 * `SessionSockets.accept` and `sessionEventStream`, so both admit exactly the same requests.
 */
import { AuthServiceClient } from "../auth-service/client";
import { AuthServiceError } from "../auth-service/errors";
import type { AuthServiceSession, ServiceSessionResolver } from "../auth-service/types";
import { bindingOf } from "./bindings";

/** Why a request has no usable session. */
export type SessionRefusal =
  /** No live session in the request: 401. */
  | "unauthenticated"
  /** The auth service did not answer: 503. */
  | "auth_unavailable";

export type RequestSession =
  | { ok: true; session: AuthServiceSession }
  | { ok: false; reason: SessionRefusal; response: Response };

/** The request's session, or the response refusing it. Errors other than the auth service's are thrown. */
export async function requestSession(
  request: Request,
  env: object,
  auth: string | ServiceSessionResolver,
  what: string,
): Promise<RequestSession> {
  let session: AuthServiceSession | null;
  try {
    session = await resolverOf(env, auth, what).resolveSession(request);
  } catch (err) {
    if (!(err instanceof AuthServiceError)) throw err;
    return {
      ok: false,
      reason: "auth_unavailable",
      response: new Response("Sign-in service unavailable", { status: 503 }),
    };
  }
  if (session === null) {
    return { ok: false, reason: "unauthenticated", response: new Response("Unauthorized", { status: 401 }) };
  }
  return { ok: true, session };
}

function resolverOf(env: object, auth: string | ServiceSessionResolver, what: string): ServiceSessionResolver {
  if (typeof auth !== "string") return auth;
  return new AuthServiceClient(bindingOf(env, auth, what) as ConstructorParameters<typeof AuthServiceClient>[0]);
}
