/**
 * Helpers of the app-connections project: sessions in the stand-in auth service, sockets opened
 * the way a browser opens them (an upgrade request to a room, through the room's namespace), and
 * notices as the auth worker sends them over the service binding.
 */
import { env } from "cloudflare:workers";
import type { SessionsEndedKind, SessionsEndedNotice } from "gatehouse-workers/connections";
import type { RoomStats, StandInSession } from "./worker";

export const ORIGIN = "https://app.example.com";

export interface TestSession {
  sessionId: string;
  userId: string;
  cookie: string;
}

const hex = (bytes: number) =>
  [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

export const freshUser = () => `user_${hex(6)}`;
export const freshRoom = () => `room-${hex(6)}`;

/** A live session of `userId` in the stand-in auth service. */
export async function newSession(userId: string): Promise<TestSession> {
  const token = hex(16);
  const session: StandInSession = {
    sessionId: hex(32),
    user: { id: userId, email: `${userId}@example.com`, firstName: "Test", lastName: "User", memberships: [] },
    expiresAt: Date.now() + 3_600_000,
    authenticatedAt: Date.now(),
    impersonator: null,
  };
  await env.APP_SESSIONS.put(`s:${token}`, JSON.stringify(session));
  return { sessionId: session.sessionId, userId, cookie: `app_session=${token}` };
}

export type RoomBinding = "ROOM_A" | "ROOM_B" | "ROOM_DOWN";

export interface Socket {
  ws: WebSocket;
  closed: Promise<{ code: number; reason: string }>;
  /** Whether the socket still answers (the room reads its session back from the tag). */
  who(): Promise<{ session: string | null; tags: string[] } | "closed">;
}

/** Upgrades to room `name` of `binding` with the session's cookie (or none). */
export async function upgrade(
  binding: RoomBinding,
  name: string,
  cookie: string | null,
  tags: string[] = [],
): Promise<Response> {
  const url = new URL(`${ORIGIN}/socket`);
  for (const tag of tags) url.searchParams.append("tag", tag);
  const headers: Record<string, string> = { Upgrade: "websocket" };
  if (cookie) headers.Cookie = cookie;
  return env[binding].getByName(name).fetch(url, { headers });
}

export async function open(binding: RoomBinding, name: string, session: TestSession, tags: string[] = []) {
  const res = await upgrade(binding, name, session.cookie, tags);
  if (!res.webSocket) throw new Error(`upgrade refused: ${res.status}`);
  return socketOf(res.webSocket);
}

export function socketOf(ws: WebSocket): Socket {
  const replies: ((data: string) => void)[] = [];
  ws.accept();
  ws.addEventListener("message", (e) => replies.shift()?.(String(e.data)));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
  );
  return {
    ws,
    closed,
    who: async () => {
      const reply = new Promise<string>((resolve) => replies.push(resolve));
      try {
        ws.send("who");
      } catch {
        return "closed";
      }
      const answer = await Promise.race([reply, closed.then(() => "closed" as const)]);
      return answer === "closed" ? answer : (JSON.parse(answer) as { session: string | null; tags: string[] });
    },
  };
}

export function notice(
  userId: string,
  sessionIds: string[],
  kind: SessionsEndedKind = "revoked",
  id = `evt_${hex(8)}`,
): SessionsEndedNotice {
  return {
    id,
    userId,
    sessionIds,
    kind,
    reason: kind === "revoked" ? "revoked" : "device_proof_missing",
    actor: kind === "revoked" ? "admin" : null,
    at: Date.now(),
  };
}

export const stats = (binding: RoomBinding, name: string): Promise<RoomStats> => env[binding].getByName(name).stats();

export function withTimeout<T>(promise: Promise<T>, ms = 2_000, what = "operation"): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms)),
  ]);
}
