/**
 * Fixtures for the session-object tests: a SessionManager over the real
 * local KV and UserSessions namespace, sessions for a user, and live
 * WebSocket tabs opened through the auth worker's /parties route.
 */
import { env, exports } from "cloudflare:workers";
import { type IdentityUser, type RevocationMode, SessionManager } from "gatehouse-workers/auth";
import { decodeMessage, type LiveMessage } from "gatehouse-workers/durable-objects";

export const ORIGIN = "https://auth.example.com";

export function manager(revocation: RevocationMode = "strict"): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS, revocation });
}

export function identity(id: string): IdentityUser {
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Test",
    lastName: id,
    memberships: [{ organizationId: "org_acme", organizationSlug: "acme", role: "admin" }],
  };
}

let counter = 0;
/** A fresh user id per test, so objects never share state across tests. */
export function freshUser(): string {
  return `user_${Date.now().toString(36)}_${++counter}`;
}

export async function newSession(
  sessions: SessionManager,
  userId: string,
  meta: { userAgent?: string; ip?: string } = {},
) {
  const { sessionId, response } = await sessions.createSession(identity(userId), "org_acme", meta);
  const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  return { sessionId, cookie };
}

export interface Tab {
  ws: WebSocket;
  messages: LiveMessage[];
  closed: Promise<{ code: number; reason: string }>;
  next(type: LiveMessage["type"]): Promise<LiveMessage>;
}

/** Opens a live tab through the auth worker's route, as partysocket would. */
export async function openTab(userId: string, cookie: string, headers: Record<string, string> = {}): Promise<Tab> {
  const res = await exports.default.fetch(`${ORIGIN}/parties/user-sessions/${userId}`, {
    headers: { Upgrade: "websocket", Cookie: cookie, Origin: ORIGIN, ...headers },
  });
  if (!res.webSocket) throw new Error(`upgrade refused: ${res.status} ${await res.text()}`);
  const ws = res.webSocket;
  const messages: LiveMessage[] = [];
  const waiters: { type: string; resolve: (m: LiveMessage) => void }[] = [];
  ws.accept();
  ws.addEventListener("message", (e) => {
    const message = decodeMessage(String(e.data));
    messages.push(message);
    for (const w of waiters.filter((w) => w.type === message.type)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(message);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
  );
  return {
    ws,
    messages,
    closed,
    next: (type) => {
      const seen = messages.find((m) => m.type === type);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ type, resolve }));
    },
  };
}

/**
 * Whether the tab is still open after what came before this call: it sends `ping` and waits for a
 * new `pong` (open) or the close (closed). The object answers messages in order, so a tab that a
 * finished revocation closed can never answer; no wall-clock wait is involved.
 */
export async function staysOpen(tab: Tab): Promise<"open" | "closed"> {
  const pongs = () => tab.messages.filter((m) => m.type === "pong").length;
  const before = pongs();
  const pong = new Promise<"open">((resolve) => {
    tab.ws.addEventListener("message", () => {
      if (pongs() > before) resolve("open");
    });
  });
  try {
    tab.ws.send("ping");
  } catch {
    return "closed";
  }
  return Promise.race([pong, tab.closed.then(() => "closed" as const)]);
}

export function withTimeout<T>(promise: Promise<T>, ms = 2_000, what = "operation"): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms)),
  ]);
}
