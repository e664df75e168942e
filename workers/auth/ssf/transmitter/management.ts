/**
 * @module
 * The SSF stream management API (SSF 1.0 §8.1) for the receivers in `ssf.receivers`:
 * `/ssf/stream` (POST create, GET read, PATCH update, PUT replace, DELETE), `/ssf/status` (GET,
 * POST), `/ssf/subjects/add`, `/ssf/subjects/remove` and `/ssf/verify` (POST). Each request carries
 * its receiver's own bearer token (RFC 6750 §2.1), compared as SHA-256 digests in constant time;
 * the admin token opens nothing here, nor does a receiver's token an operator also gave another
 * receiver or an admin (it would not say who calls). The token alone decides the receiver, and the
 * receiver's grant (its `aud`, the origins its endpoints may be under, its number of streams) comes
 * from configuration, never from the request. A body is at most 16 KiB of JSON nested at most 16
 * levels. These are machine-to-machine calls with no cookie, so there is no ambient credential to
 * forge (no CSRF token); the methods are the specification's (PATCH, PUT, DELETE included). Answers are JSON with `Cache-Control: no-store`; a 4xx carries
 * `{ error, message }`, never an echo of the request.
 */
import type { Application } from "../../../../client-sdk/core/application";
import { readBoundedText } from "../../../../client-sdk/core/body";
import { jsonError } from "../../../../client-sdk/core/errors";
import {
  type ManagementAnswer,
  type ReceiverGrant,
  type SsfStreams,
  streamsObject,
} from "../../../../durable-objects/ssf-streams";
import { adminLabelOf, adminTokens } from "../../admin/tokens";
import { routeLimiterFor } from "../../limits";
import type { AuthEnv } from "../../provider";
import type { ResolvedSsfReceiver } from "./options";

export const SSF_STREAM_PATH = "/ssf/stream";
export const SSF_STATUS_PATH = "/ssf/status";
export const SSF_ADD_SUBJECT_PATH = "/ssf/subjects/add";
export const SSF_REMOVE_SUBJECT_PATH = "/ssf/subjects/remove";
export const SSF_VERIFY_PATH = "/ssf/verify";
const MANAGEMENT_PATHS = [
  SSF_STREAM_PATH,
  SSF_STATUS_PATH,
  SSF_ADD_SUBJECT_PATH,
  SSF_REMOVE_SUBJECT_PATH,
  SSF_VERIFY_PATH,
] as const;
/** A stream configuration is well under 8 KiB; anything larger is refused unread. */
const MAX_BODY_BYTES = 16 * 1024;
/**
 * Nesting no request needs (a complex subject is three levels into the body). Deeper JSON is
 * refused before it goes to the object: the RPC serializer recurses, and 16 KiB of `[` overflow it.
 */
const MAX_DEPTH = 16;

const NO_STORE = { "Cache-Control": "no-store" };

export interface ManagementOptions {
  receivers: readonly ResolvedSsfReceiver[];
  /** The issuer the streams are created under (`iss`). */
  issuer: () => string;
  /** The `SsfStreams` binding's name. */
  binding: string;
}

export function registerSsfManagement<E extends AuthEnv>(app: Application<E>, options: ManagementOptions): void {
  if (options.receivers.length === 0) return;
  const limiter = routeLimiterFor(app, "ssf", { reportLockouts: false });
  const env = () => app.env as unknown as Record<string, unknown>;

  /** True when the receiver's configured token is also an admin token or another receiver's. */
  const sharedToken = (name: string, tokens: readonly { label: string; token: string }[]) => {
    const own = tokens.find((t) => t.label === name)?.token;
    const others = [...adminTokens(env()), ...tokens.filter((t) => t.label !== name)];
    return others.some((t) => t.token === own);
  };

  /** The object, the receiver's grant, or the answer that ends the request (401, 503). */
  async function caller(
    request: Request,
  ): Promise<{ streams: DurableObjectStub<SsfStreams>; grant: ReceiverGrant } | Response> {
    const tokens = options.receivers.flatMap((r) => {
      const token = env()[r.tokenVariable];
      return typeof token === "string" && token !== "" ? [{ label: r.name, token }] : [];
    });
    // The same bearer parsing and constant-time comparison as the admin API's, over the receivers' tokens.
    const who = await adminLabelOf(request, tokens);
    let receiver = who !== null && who !== "missing" ? options.receivers.find((r) => r.name === who.label) : undefined;
    // A token an operator reused (an admin token, another receiver's) does not say who calls: it opens nothing.
    if (receiver && sharedToken(receiver.name, tokens)) {
      console.error(
        `gatehouse: ssf: receiver ${receiver.name}'s token is also an admin token or another receiver's; it opens nothing until it is its own`,
      );
      receiver = undefined;
    }
    if (!receiver) {
      return jsonError(401, "unauthorized", "A receiver's bearer token is required.", {
        "WWW-Authenticate": 'Bearer realm="ssf"',
      });
    }
    const streams = streamsObject(env()[options.binding]);
    if (!streams) {
      console.error(`gatehouse: ssf: ${options.binding} is not bound; stream management is unavailable`);
      return jsonError(503, "service_unavailable", "This service is not available right now.", { "Retry-After": "30" });
    }
    const { name: receiverName, audience, endpoints, maxStreams } = receiver;
    return {
      streams,
      grant: { name: receiverName, audience, endpoints, maxStreams },
    };
  }

  const route = (
    path: string,
    handler: (
      call: { streams: DurableObjectStub<SsfStreams>; grant: ReceiverGrant },
      request: Request,
    ) => Promise<Response>,
  ) => {
    app.hono.all(path, async (c) => {
      const who = await caller(c.req.raw);
      if (who instanceof Response) return who;
      return handler(who, c.req.raw);
    });
  };

  if (limiter) for (const path of MANAGEMENT_PATHS) app.hono.use(path, limiter);

  route(SSF_STREAM_PATH, async ({ streams, grant }, request) => {
    const streamId = new URL(request.url).searchParams.get("stream_id");
    switch (request.method) {
      case "GET":
        return answer(await streams.readStreams(grant, streamId));
      case "DELETE":
        return answer(await streams.deleteStream(grant, streamId));
      case "POST":
      case "PATCH":
      case "PUT": {
        const body = await jsonBody(request);
        if (body instanceof Response) return body;
        if (request.method === "POST") return answer(await streams.createStream(grant, body, options.issuer()), true);
        return answer(await streams.updateStream(grant, body, request.method === "PUT"));
      }
      default:
        return notAllowed("GET, POST, PATCH, PUT, DELETE");
    }
  });
  route(SSF_STATUS_PATH, async ({ streams, grant }, request) => {
    if (request.method === "GET") {
      return answer(await streams.readStatus(grant, new URL(request.url).searchParams.get("stream_id")));
    }
    if (request.method !== "POST") return notAllowed("GET, POST");
    const body = await jsonBody(request);
    return body instanceof Response ? body : answer(await streams.updateStatus(grant, body));
  });
  const post = (
    path: string,
    call: (streams: DurableObjectStub<SsfStreams>, grant: ReceiverGrant, body: unknown) => Promise<ManagementAnswer>,
  ) =>
    route(path, async ({ streams, grant }, request) => {
      if (request.method !== "POST") return notAllowed("POST");
      const body = await jsonBody(request);
      return body instanceof Response ? body : answer(await call(streams, grant, body));
    });
  post(SSF_ADD_SUBJECT_PATH, (streams, grant, body) => streams.changeSubject(grant, body, "add"));
  post(SSF_REMOVE_SUBJECT_PATH, (streams, grant, body) => streams.changeSubject(grant, body, "remove"));
  post(SSF_VERIFY_PATH, (streams, grant, body) => streams.verify(grant, body));
}

/** The request's JSON body, or the 400/413 that refuses it. */
async function jsonBody(request: Request): Promise<unknown | Response> {
  const text = await readBoundedText(request, MAX_BODY_BYTES);
  if (text === null) return jsonError(400, "invalid_request", "The body must be a JSON object of at most 16 KiB.");
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return jsonError(400, "invalid_request", "The body is not JSON.");
  }
  return tooDeep(body) ? jsonError(400, "invalid_request", `The body nests deeper than ${MAX_DEPTH} levels.`) : body;
}

/** True when `value` has objects or arrays nested deeper than `MAX_DEPTH` (walked without recursion). */
function tooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (typeof node !== "object" || node === null) continue;
    if (depth > MAX_DEPTH) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The object's answer as HTTP (`created`: a 201's `Location` is the stream's own URL, RFC 9110 §15.3.2). */
function answer(result: ManagementAnswer, created = false): Response {
  if (result.status === 204) return new Response(null, { status: 204, headers: NO_STORE });
  if ("error" in result) {
    return jsonError(result.status, result.error, result.description, {
      ...(result.retryAfter !== undefined ? { "Retry-After": String(result.retryAfter) } : {}),
    });
  }
  if (result.body === null) return new Response(null, { status: result.status, headers: NO_STORE });
  const headers: Record<string, string> = { ...NO_STORE };
  if (created && result.status === 201 && !Array.isArray(result.body) && "stream_id" in result.body) {
    headers.Location = `${SSF_STREAM_PATH}?stream_id=${encodeURIComponent(result.body.stream_id)}`;
  }
  return Response.json(result.body, { status: result.status, headers });
}

function notAllowed(allow: string): Response {
  return jsonError(405, "method_not_allowed", "This method is not allowed here.", { Allow: allow });
}
