/**
 * @module
 * `SessionSockets`: what an app's Durable Object that holds WebSockets adds to close them when
 * their session ends. `accept` resolves the request's session over the auth service binding, accepts
 * a hibernatable socket tagged with it and registers the object with the user's registry; `close`
 * closes a notice's sockets found by tag. No timers, no in-memory index, nothing in the attachment:
 * a freshly woken instance closes the same sockets. It never accepts a socket without a session.
 */
import type { AuthServiceSession, ServiceSessionResolver } from "../auth-service/types";
import { withDeadline } from "../core/deadline";
import { APP_CLOSE, type SessionsEndedNotice } from "../protocol/app-connections";
import {
  BINDING_NAME,
  DEFAULT_AUTH_BINDING,
  DEFAULT_REGISTRY_BINDING,
  namespaceOf,
  type SessionRegistry,
} from "./bindings";
import { AppConnectionsError } from "./errors";
import { parseNotice } from "./notice";
import { requestSession } from "./session";
import { isSessionTag, sessionOf, sessionTag } from "./tags";

/** A socket may carry 10 tags; the session tag takes one. */
export const MAX_APP_TAGS = 9;
const MAX_TAG_LENGTH = 256;

export interface SessionSocketsOptions {
  /** The env binding of this object's own namespace: the registry calls `env[binding].getByName(name)`. */
  binding: string;
  /** This object's name; default `ctx.id.name` (set when it was addressed with `getByName`/`idFromName`). */
  name?: string;
  /** The auth service: a binding name (default `AUTH`) or a resolver such as an `AuthServiceClient`. */
  auth?: string | ServiceSessionResolver;
  /** The binding of the registry (`SessionConnections`); default `GATEHOUSE_CONNECTIONS`. */
  registry?: string;
  /** How long `register` may take before the socket is closed 1011 (default 5 s). */
  registerTimeoutMs?: number;
}

export interface AcceptOptions {
  /** The app's own tags (at most 9, none starting with `gh:s:`), for its own `getWebSockets(tag)`. */
  tags?: readonly string[];
}

/** Why `accept` opened no usable socket. */
export type AcceptRefusal =
  /** The request is not a WebSocket upgrade: 426. */
  | "not_websocket"
  /** No live session in the request: 401. */
  | "unauthenticated"
  /** The auth service did not answer: 503. */
  | "auth_unavailable"
  /** The session's revocation arrived first: 101, then closed 4001. */
  | "ended"
  /** The registry did not answer: 101, then closed 1011 (fail closed). */
  | "registry_unavailable";

export type AcceptResult =
  | { ok: true; socket: WebSocket; session: AuthServiceSession; response: Response }
  | { ok: false; reason: AcceptRefusal; response: Response };

/** The close code of the socket `accept` had to close at once when the registry did not answer. */
export const REGISTRY_UNAVAILABLE_CLOSE = { code: 1011, reason: "session check unavailable" } as const;

/**
 * @example
 * ```ts
 * export class Chat extends DurableObject<Env> {
 *   #sockets = new SessionSockets(this.ctx, this.env, { binding: "CHAT" });
 *   async fetch(request: Request) { return (await this.#sockets.accept(request)).response; }
 *   gatehouseSessionsEnded(notice: SessionsEndedNotice) { return this.#sockets.close(notice); }
 * }
 * ```
 */
export class SessionSockets {
  readonly #ctx: DurableObjectState;
  readonly #env: object;
  readonly #binding: string;
  readonly #name: string | undefined;
  readonly #auth: string | ServiceSessionResolver;
  readonly #registry: string;
  readonly #registerTimeoutMs: number;

  constructor(ctx: DurableObjectState, env: object, options: SessionSocketsOptions) {
    if (typeof options?.binding !== "string" || !BINDING_NAME.test(options.binding)) {
      throw new TypeError("SessionSockets: options.binding must name this object's namespace binding");
    }
    this.#ctx = ctx;
    this.#env = env;
    this.#binding = options.binding;
    this.#name = options.name;
    this.#auth = options.auth ?? DEFAULT_AUTH_BINDING;
    this.#registry = options.registry ?? DEFAULT_REGISTRY_BINDING;
    this.#registerTimeoutMs = options.registerTimeoutMs ?? 5_000;
  }

  /**
   * Accepts the request's WebSocket under its session, or answers why not. With a live session the
   * answer is 101 even when the socket is closed at once (4001: revoked meanwhile; 1011: registry
   * unavailable), so the client reads the close code.
   */
  async accept(request: Request, options: AcceptOptions = {}): Promise<AcceptResult> {
    const appTags = checkedTags(options.tags ?? []);
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return refused("not_websocket", new Response("Expected a WebSocket upgrade", { status: 426 }));
    }
    const resolved = await requestSession(request, this.#env, this.#auth, "SessionSockets.accept");
    if (!resolved.ok) return refused(resolved.reason, resolved.response);
    const session = resolved.session;

    const name = this.#name ?? this.#ctx.id.name;
    if (name === undefined) throw new AppConnectionsError("holder_unnamed");
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    // Tagged before registering: a notice arriving while `register` is in flight finds it by tag.
    this.#ctx.acceptWebSocket(server, [sessionTag(session.sessionId), ...appTags]);
    const response = new Response(null, { status: 101, webSocket: client });
    let registered: "ok" | "ended";
    try {
      const registry = namespaceOf<SessionRegistry>(this.#env, this.#registry, "SessionSockets.accept");
      registered = await withDeadline(
        registry
          .getByName(session.user.id)
          .register({ sessionId: session.sessionId, binding: this.#binding, name, expiresAt: session.expiresAt }),
        this.#registerTimeoutMs,
        () => new AppConnectionsError("registry_unavailable"),
      );
    } catch {
      server.close(REGISTRY_UNAVAILABLE_CLOSE.code, REGISTRY_UNAVAILABLE_CLOSE.reason);
      return refused("registry_unavailable", response);
    }
    if (registered === "ended") {
      server.close(APP_CLOSE.revoked.code, APP_CLOSE.revoked.reason);
      return refused("ended", response);
    }
    return { ok: true, socket: server, session, response };
  }

  /**
   * Closes every open socket accepted under one of the notice's sessions: 4001 when revoked, 4004
   * when a device proof was missing. Sockets already closing are not counted, so a repeated notice
   * answers `{ closed: 0 }`.
   */
  async close(notice: SessionsEndedNotice): Promise<{ closed: number }> {
    const parsed = parseNotice(notice);
    if (!parsed.ok) throw new AppConnectionsError("invalid_notice");
    const { code, reason } = parsed.value.kind === "revoked" ? APP_CLOSE.revoked : APP_CLOSE.deviceProofMissing;
    let closed = 0;
    for (const id of parsed.value.sessionIds) {
      for (const ws of this.#ctx.getWebSockets(sessionTag(id))) {
        if (ws.readyState !== WebSocket.OPEN) continue;
        try {
          ws.close(code, reason);
          closed++;
        } catch {
          // Closed by the other side meanwhile: nothing left to close.
        }
      }
    }
    return { closed };
  }

  /** The session a socket of this object was accepted under, or null. */
  sessionOf(ws: WebSocket): string | null {
    return sessionOf(this.#ctx, ws);
  }
}

function refused(reason: AcceptRefusal, response: Response): AcceptResult {
  return { ok: false, reason, response };
}

function checkedTags(tags: readonly string[]): string[] {
  if (
    tags.length > MAX_APP_TAGS ||
    tags.some((t) => typeof t !== "string" || t.length === 0 || t.length > MAX_TAG_LENGTH || isSessionTag(t))
  ) {
    throw new AppConnectionsError("invalid_tags");
  }
  return [...tags];
}
