/**
 * @module
 * The names app connections look up in a worker's env and the RPC shapes behind them: the
 * registry (`SessionConnections`, default `GATEHOUSE_CONNECTIONS`), a holder's namespace (any
 * Durable Object with `gatehouseSessionsEnded`), the auth service (`AUTH`). A missing or
 * misshapen binding is an `AppConnectionsError("not_bound")`, never a guessed default.
 */
import type { SessionsEndedNotice } from "../protocol/app-connections";
import { AppConnectionsError } from "./errors";

/** The binding of the registry Durable Object (`SessionConnections`) unless told otherwise. */
export const DEFAULT_REGISTRY_BINDING = "GATEHOUSE_CONNECTIONS";
/** The service binding to the auth worker's `AuthService` entrypoint unless told otherwise. */
export const DEFAULT_AUTH_BINDING = "AUTH";

/** What a holder registers with the user's registry once it accepted a socket. */
export interface HolderRegistration {
  /** The public session id the socket was accepted under. */
  sessionId: string;
  /** The env binding of the holder's Durable Object namespace (in the registry's worker). */
  binding: string;
  /** The holder object's name (`getByName(name)` reaches it again). */
  name: string;
  /** When the session ends as resolved at accept (ms); the row is kept at least this long. */
  expiresAt: number;
}

/** A Durable Object that holds connections: the registry calls this when sessions it registered end, naming only those. */
export interface SessionHolder {
  gatehouseSessionsEnded(notice: SessionsEndedNotice): Promise<{ closed: number }>;
}

/** The registry's RPC methods (`SessionConnections`). */
export interface SessionRegistry {
  register(registration: HolderRegistration): Promise<"ok" | "ended">;
  sessionsEnded(notice: SessionsEndedNotice): Promise<{ closed: number }>;
}

/** A namespace as far as app connections use it: a stub by name. */
export interface NamedNamespace<T> {
  getByName(name: string): T;
}

/** `env[binding]` as a Durable Object namespace, or `not_bound`. */
export function namespaceOf<T>(env: object, binding: string, what: string): NamedNamespace<T> {
  const value: unknown = (env as Record<string, unknown>)[binding];
  if (
    typeof value !== "object" ||
    value === null ||
    typeof (value as { getByName?: unknown }).getByName !== "function"
  ) {
    throw new AppConnectionsError("not_bound", {
      message: `${what}: env.${binding} is not a Durable Object namespace binding`,
    });
  }
  return value as NamedNamespace<T>;
}

/** `env[binding]`, or `not_bound`. */
export function bindingOf(env: object, binding: string, what: string): object {
  const value: unknown = (env as Record<string, unknown>)[binding];
  if (typeof value !== "object" || value === null) {
    throw new AppConnectionsError("not_bound", { message: `${what}: env.${binding} is not bound` });
  }
  return value;
}

/** A binding name as wrangler accepts it (letters, digits, underscores). */
export const BINDING_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The registry's watch upgrade (`sessionEventStream` → `SessionConnections.fetch`): a WebSocket
 * from a plain worker holding an event stream, tagged with the session this header names. The
 * registry is a Durable Object, reached only through its binding, never from the internet.
 */
export const WATCH_URL = "https://registry/watch";
export const WATCH_SESSION_HEADER = "Gatehouse-Session-Id";
