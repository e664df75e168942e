/**
 * @module
 * `sessionEventStream`: a plain worker's server-sent event stream that ends when its session does.
 * It resolves the request's session over the auth service binding (as `SessionSockets.accept`
 * does: none → 401), opens a WebSocket from the worker to the user's registry (`SessionConnections`,
 * `/watch`), which holds it hibernatable under the session tag, and answers `text/event-stream`.
 * A notice closes that socket by tag: the stream writes `session.revoked` (4001) or
 * `session.device_proof_required` (4004) and ends. The client leaving closes the socket. No timers,
 * no polling, nothing stored: the open socket is the whole subscription.
 */
import type { AuthServiceSession, ServiceSessionResolver } from "../auth-service/types";
import { withDeadline } from "../core/deadline";
import { APP_CLOSE } from "../protocol/app-connections";
import {
  DEFAULT_AUTH_BINDING,
  DEFAULT_REGISTRY_BINDING,
  namespaceOf,
  WATCH_SESSION_HEADER,
  WATCH_URL,
} from "./bindings";
import { AppConnectionsError } from "./errors";
import { requestSession, type SessionRefusal } from "./session";

export interface SessionEventStreamOptions {
  /** The auth service: a binding name (default `AUTH`) or a resolver such as an `AuthServiceClient`. */
  auth?: string | ServiceSessionResolver;
  /** The binding of the registry (`SessionConnections`); default `GATEHOUSE_CONNECTIONS`. */
  registry?: string;
  /** How long the registry may take to accept the watch socket before the answer is 503 (default 5 s). */
  watchTimeoutMs?: number;
}

/** Why `sessionEventStream` opened no stream. */
export type EventStreamRefusal =
  | SessionRefusal
  /** The registry did not accept the watch socket: 503 (fail closed: no stream nobody could end). */
  | "registry_unavailable";

/** The events the stream itself writes before it ends. */
export const SESSION_STREAM_EVENTS = {
  /** 4001: the session was revoked; do not reconnect with it. */
  revoked: "session.revoked",
  /** 4004: a device-bound session was used without its proof; the real device may reconnect. */
  deviceProofRequired: "session.device_proof_required",
} as const;

/** An open stream: `send` the app's own events into it, `close` it; `signal` aborts when it ends. */
export interface SessionEventStream {
  ok: true;
  session: AuthServiceSession;
  /** 200 `text/event-stream`, `Cache-Control: no-store`: return it from `fetch`. */
  response: Response;
  /** Writes one event (`data` split into lines); false once the stream ended. */
  send(event: string, data: string): boolean;
  /** Ends the stream and its watch socket (the client's `EventSource` then reconnects). */
  close(): void;
  /** Aborted when the stream ends: revoked, device proof required, client gone, `close()`, or the watch lost. */
  signal: AbortSignal;
}

export type SessionEventStreamResult =
  | SessionEventStream
  | { ok: false; reason: EventStreamRefusal; response: Response };

interface Fetches {
  fetch(request: Request): Promise<Response>;
}

const EVENT_NAME = /^[^\r\n:]{1,64}$/;
const encoder = new TextEncoder();

/**
 * @example
 * ```ts
 * export default {
 *   async fetch(request: Request, env: Env): Promise<Response> {
 *     const stream = await sessionEventStream(request, env);
 *     if (stream.ok) stream.send("hello", JSON.stringify({ user: stream.session.user.id }));
 *     return stream.response; // 401 without a session
 *   },
 * };
 * ```
 */
export async function sessionEventStream(
  request: Request,
  env: object,
  options: SessionEventStreamOptions = {},
): Promise<SessionEventStreamResult> {
  const resolved = await requestSession(request, env, options.auth ?? DEFAULT_AUTH_BINDING, "sessionEventStream");
  if (!resolved.ok) return resolved;
  const { session } = resolved;

  let watch: WebSocket;
  try {
    const registry = namespaceOf<Fetches>(env, options.registry ?? DEFAULT_REGISTRY_BINDING, "sessionEventStream");
    const answer = await withDeadline(
      registry
        .getByName(session.user.id)
        .fetch(
          new Request(WATCH_URL, { headers: { Upgrade: "websocket", [WATCH_SESSION_HEADER]: session.sessionId } }),
        ),
      options.watchTimeoutMs ?? 5_000,
      () => new AppConnectionsError("registry_unavailable"),
    );
    if (answer.webSocket === null) throw new AppConnectionsError("registry_unavailable");
    watch = answer.webSocket;
  } catch (err) {
    if (err instanceof AppConnectionsError && err.code === "not_bound") throw err;
    return {
      ok: false,
      reason: "registry_unavailable",
      response: new Response("Session check unavailable", { status: 503 }),
    };
  }

  const ended = new AbortController();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      end(null); // the client left
    },
  });

  function end(last: string | null): void {
    if (ended.signal.aborted) return;
    ended.abort();
    try {
      if (last !== null) controller.enqueue(encoder.encode(last));
      controller.close();
    } catch {
      // Cancelled by the client: nothing left to write.
    }
    try {
      watch.close(1000, "stream ended");
    } catch {
      // Already closed by the registry.
    }
  }

  watch.accept();
  watch.addEventListener("close", (e) => {
    const notice =
      e.code === APP_CLOSE.revoked.code
        ? frame(SESSION_STREAM_EVENTS.revoked, JSON.stringify(APP_CLOSE.revoked))
        : e.code === APP_CLOSE.deviceProofMissing.code
          ? frame(SESSION_STREAM_EVENTS.deviceProofRequired, JSON.stringify(APP_CLOSE.deviceProofMissing))
          : null; // The watch was lost (the registry restarted): end, so the client reconnects and is checked again.
    end(notice);
  });
  watch.addEventListener("error", () => end(null));

  return {
    ok: true,
    session,
    response: new Response(body, {
      headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store" },
    }),
    send(event, data) {
      if (!EVENT_NAME.test(event))
        throw new TypeError("sessionEventStream: an event name is 1-64 characters, no newline or colon");
      if (ended.signal.aborted) return false;
      try {
        controller.enqueue(encoder.encode(frame(event, data)));
        return true;
      } catch {
        end(null);
        return false;
      }
    },
    close: () => end(null),
    signal: ended.signal,
  };
}

function frame(event: string, data: string): string {
  return `event: ${event}\n${data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join("")}\n`;
}
