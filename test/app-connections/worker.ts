/**
 * The fixture app of the app-connections project: holder objects as a team writes them
 * (SessionSockets, two lines), the SDK's registry and entrypoint, and a stand-in for the auth
 * worker's AuthService. Each room counts its constructor runs and notice calls in its own SQLite
 * (`stats`), so a test sees whether a notice woke it. The registry's clock is `setRegistryClock`.
 * The default export is a plain worker: `/events` answers `sessionEventStream` (one `hello` event).
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import type { AppUser } from "gatehouse-workers/client";
import {
  GatehouseRevocations,
  type HolderRegistration,
  SessionConnections,
  SessionSockets,
  type SessionsEndedNotice,
  sessionEventStream,
} from "gatehouse-workers/connections";

export { GatehouseRevocations };

let registryNow: () => number = Date.now;
/** The registry's clock (tests); null restores Date.now. */
export function setRegistryClock(clock: (() => number) | null): void {
  registryNow = clock ?? Date.now;
}

let registerGate: Promise<void> | null = null;
/**
 * Holds every `register` answer (after the registry wrote its row) until the returned release is
 * called: a notice can then arrive while a holder's `register` is still in flight (tests).
 */
export function holdRegisterAnswers(): () => void {
  let release!: () => void;
  registerGate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return () => {
    registerGate = null;
    release();
  };
}

/** The SDK's registry with the test clock injected. */
export class Connections extends SessionConnections {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, { now: () => registryNow() });
  }

  override async register(registration: HolderRegistration): Promise<"ok" | "ended"> {
    const answer = await super.register(registration);
    if (registerGate) await registerGate;
    return answer;
  }

  /** Open watch sockets (event streams) by session tag, sorted (tests). */
  watching(): string[] {
    return this.ctx
      .getWebSockets()
      .filter((ws) => ws.readyState === WebSocket.OPEN)
      .flatMap((ws) => this.ctx.getTags(ws))
      .sort();
  }
}

/** A registry that is down: every call fails as an overloaded object would. */
export class DownConnections extends DurableObject<Env> {
  async register(): Promise<never> {
    throw new Error("Durable Object is overloaded");
  }
}

/** What a stand-in session resolves to (`AuthService.resolveSession`'s answer shape). */
export interface StandInSession {
  sessionId: string;
  user: AppUser;
  expiresAt: number;
  authenticatedAt: number;
  impersonator: null;
}

/** Stand-in for the auth worker's AuthService: the Cookie's `app_session` token → a session in APP_SESSIONS. */
export class StandInAuthService extends WorkerEntrypoint<Env> {
  async resolveSession(cookieHeader: string | null): Promise<StandInSession | null> {
    const token = /(?:^|;\s*)app_session=([^;]+)/.exec(cookieHeader ?? "")?.[1];
    return token ? await this.env.APP_SESSIONS.get<StandInSession>(`s:${token}`, "json") : null;
  }

  async resolveUser(cookieHeader: string | null): Promise<AppUser | null> {
    return (await this.resolveSession(cookieHeader))?.user ?? null;
  }
}

export interface RoomStats {
  constructs: number;
  calls: number;
  /** Open sockets by session tag, sorted. */
  open: string[];
}

function room(binding: string, registry?: string) {
  return class Room extends DurableObject<Env> {
    readonly #sockets: SessionSockets;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS stats (k TEXT PRIMARY KEY, n INTEGER NOT NULL)");
      this.#bump("constructs");
      this.#sockets = new SessionSockets(ctx, env, {
        binding,
        auth: "APP_AUTH",
        ...(registry ? { registry } : {}),
      });
    }

    override async fetch(request: Request): Promise<Response> {
      const tags = new URL(request.url).searchParams.getAll("tag");
      return (await this.#sockets.accept(request, { tags })).response;
    }

    /** The registry's call. */
    async gatehouseSessionsEnded(notice: SessionsEndedNotice): Promise<{ closed: number }> {
      this.#bump("calls");
      return this.#sockets.close(notice);
    }

    /** Answers "who": the session (from the socket's tag) and the app tags, read by a woken instance too. */
    override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
      if (message === "who") {
        ws.send(JSON.stringify({ session: this.#sockets.sessionOf(ws), tags: this.ctx.getTags(ws) }));
      }
    }

    stats(): RoomStats {
      const n = (k: string) =>
        this.ctx.storage.sql.exec<{ n: number }>("SELECT n FROM stats WHERE k = ?", k).toArray()[0]?.n ?? 0;
      const open = this.ctx
        .getWebSockets()
        .filter((ws) => ws.readyState === WebSocket.OPEN)
        .map((ws) => this.#sockets.sessionOf(ws) ?? "")
        .sort();
      return { constructs: n("constructs"), calls: n("calls"), open };
    }

    #bump(k: string): void {
      this.ctx.storage.sql.exec("INSERT INTO stats (k, n) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET n = n + 1", k);
    }
  };
}

export class RoomA extends room("ROOM_A") {}
export class RoomB extends room("ROOM_B") {}
export class RoomDown extends room("ROOM_DOWN", "CONNECTIONS_DOWN") {}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (new URL(request.url).pathname === "/events") {
      const stream = await sessionEventStream(request, env, { auth: "APP_AUTH" });
      if (stream.ok) stream.send("hello", JSON.stringify({ session: stream.session.sessionId }));
      return stream.response;
    }
    return new Response("app-connections fixture", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
