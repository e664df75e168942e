/**
 * The cost bench's worker: the deployed auth worker (every default, as `init` writes it) over
 * counting bindings. Its fetch handler, `AuthService` and its Durable Object classes (the
 * template's three, and `SsfStreams`) are ours unchanged, each handed the counting env
 * (bindings.ts), with the objects' storage counted (storage.ts); each inbound request, alarm,
 * incoming WebSocket message and object start is counted here, and the objects' `stats` probes
 * are not.
 * `EventualAuthService` and `EventualAuthWorker` are the same entrypoint and fetch handler on an env
 * that says `GATEHOUSE_REVOCATION=eventual`.
 * `GuardedApp` is a consuming app: its pages and API behind `ServiceAuthMiddleware`, its sign-out
 * through `ServiceLogoutHandler`, both over a (counted) service binding to one of the two. It never
 * changes what the auth worker does.
 * `SsfStreams` is the shared-signals streams object (issue 32), counted like the others; no object
 * hands it anything unless a scenario turns streams on for it (ssf-scenarios.ts).
 * `BoundAuthWorker` and `EventualBoundAuthWorker` are the auth routes (`AuthServiceProvider`) and
 * `GET /api/me` with device binding on (`deviceBinding: "opportunistic"`, off in the template), in
 * each revocation mode, over the same counting env: `createAuthWorker` takes its options once per
 * script, so the bench composes these two as `authApplication` does (security headers, the provider,
 * `/api/me`), with that option added and the route groups these operations never reach left out.
 */
import { WorkerEntrypoint, exports as workerExports } from "cloudflare:workers";
import { Application, compose } from "gatehouse-workers";
import { AuthServiceProvider } from "gatehouse-workers/auth";
import {
  type AuthServiceBinding,
  AuthServiceClient,
  currentUser,
  ServiceAuthMiddleware,
  ServiceLogoutHandler,
} from "gatehouse-workers/client";
import { authSecurityHeaders } from "../../workers/auth/app";
import { registerApiRoutes } from "../../workers/auth/app/api";
import type { AuthEnv } from "../../workers/auth/provider";
import auth, {
  AuthService as AuthServiceBase,
  OrganizationSessions as OrganizationSessionsBase,
  RateLimiterDO as RateLimiterDOBase,
  SsfStreams as SsfStreamsBase,
  UserSessions as UserSessionsBase,
} from "../../workers/auth/worker";
import { countedEnv, countedService, countOutboundFetch } from "./bindings";
import { ledger } from "./ledger";
import { countObjectStorage } from "./storage";

countOutboundFetch();

type UserSessionsEnv = ConstructorParameters<typeof UserSessionsBase>[1];

export class UserSessions extends UserSessionsBase {
  constructor(ctx: DurableObjectState, env: UserSessionsEnv) {
    countObjectStorage(ctx);
    ledger.add("objectStarts");
    super(ctx, countedEnv(env));
  }

  override alarm(): Promise<void> {
    ledger.add("doAlarms");
    return super.alarm();
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    ledger.add("doWebSocketMessagesIn");
    return super.webSocketMessage(ws, message);
  }

  /** The bench's probes: never counted (synchronous, so nothing else runs meanwhile). */
  override stats(): ReturnType<UserSessionsBase["stats"]> {
    return ledger.uncounted(() => super.stats());
  }

  override providerEventStats(): ReturnType<UserSessionsBase["providerEventStats"]> {
    return ledger.uncounted(() => super.providerEventStats());
  }
}

export class OrganizationSessions extends OrganizationSessionsBase {
  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    countObjectStorage(ctx);
    ledger.add("objectStarts");
    super(ctx, countedEnv(env));
  }

  override alarm(): Promise<void> {
    ledger.add("doAlarms");
    return super.alarm();
  }

  override memberCount(): number {
    return ledger.uncounted(() => super.memberCount());
  }
}

export class RateLimiterDO extends RateLimiterDOBase {
  constructor(ctx: DurableObjectState, env?: unknown) {
    countObjectStorage(ctx);
    ledger.add("objectStarts");
    super(ctx, env === undefined ? undefined : countedEnv(env as object));
  }

  override alarm(): Promise<void> {
    ledger.add("doAlarms");
    return super.alarm();
  }
}

export class SsfStreams extends SsfStreamsBase {
  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    countObjectStorage(ctx);
    ledger.add("objectStarts");
    super(ctx, countedEnv(env));
  }

  override alarm(): Promise<void> {
    ledger.add("doAlarms");
    return super.alarm();
  }

  /** The bench's probe: never counted. */
  override overview(recent?: number): ReturnType<SsfStreamsBase["overview"]> {
    return ledger.uncounted(() => super.overview(recent));
  }
}

export class AuthService extends AuthServiceBase {
  constructor(ctx: ExecutionContext, env: ConstructorParameters<typeof AuthServiceBase>[1]) {
    super(ctx, countedEnv(env));
  }
}

const eventualEnvs = new WeakMap<object, object>();

/** The same env with eventual revocation (one object per env: the auth worker builds one application per env). */
function eventual<E extends object>(env: E): E {
  let view = eventualEnvs.get(env) as E | undefined;
  if (!view) {
    view = { ...env, GATEHOUSE_REVOCATION: "eventual" };
    eventualEnvs.set(env, view);
  }
  return view;
}

export class EventualAuthService extends AuthServiceBase {
  constructor(ctx: ExecutionContext, env: ConstructorParameters<typeof AuthServiceBase>[1]) {
    super(ctx, countedEnv(eventual(env)));
  }
}

/** Where the guarded app sends people without a session. */
const LOGIN_URL = "https://auth.example.com/auth/login";

type Mode = "strict" | "eventual";
const apps = new Map<Mode, (request: Request) => Promise<Response>>();

function guardedApp(mode: Mode): (request: Request) => Promise<Response> {
  const made = apps.get(mode);
  if (made) return made;
  const entrypoints = workerExports as unknown as Record<string, AuthServiceBinding>;
  const binding = countedService(entrypoints[mode === "strict" ? "AuthService" : "EventualAuthService"]!);
  const client = new AuthServiceClient(binding);
  const api = compose([new ServiceAuthMiddleware(client, { loginUrl: LOGIN_URL, api: true })], (request) =>
    Response.json({ user: currentUser(request) }),
  );
  const logout = new ServiceLogoutHandler(client);
  const app = async (request: Request) =>
    new URL(request.url).pathname.endsWith("/logout") ? logout.handle(request) : api(request);
  apps.set(mode, app);
  return app;
}

/**
 * A consuming app: `/<strict|eventual>/api/me` (guarded, JSON) and `/<mode>/logout` (POST, same
 * origin), over the auth worker of that revocation mode.
 */
export class GuardedApp extends WorkerEntrypoint {
  override fetch(request: Request): Promise<Response> {
    ledger.add("workerRequests");
    const mode = new URL(request.url).pathname.split("/")[1] === "eventual" ? "eventual" : "strict";
    return guardedApp(mode)(request);
  }
}

/** The auth worker's fetch handler on the eventual-mode env (its live channel and sign-in, in that mode). */
export class EventualAuthWorker extends WorkerEntrypoint {
  override fetch(request: Request): Promise<Response> {
    ledger.add("workerRequests");
    return auth.fetch(request, countedEnv(eventual(this.env as object)), this.ctx);
  }
}

const boundApps = new Map<Mode, Application<AuthEnv>>();

/** The auth routes and `/api/me` of `mode` with device binding on, over the counting env (one per mode). */
function boundApp(env: object, mode: Mode): Application<AuthEnv> {
  const made = boundApps.get(mode);
  if (made) return made;
  const app = Application.create(countedEnv(mode === "strict" ? env : eventual(env)) as AuthEnv, {
    middleware: [authSecurityHeaders],
    providers: [new AuthServiceProvider({ session: { deviceBinding: "opportunistic" } })],
  });
  registerApiRoutes(app);
  boundApps.set(mode, app);
  return app;
}

/** The auth worker's routes with device binding on, strict revocation (the default). */
export class BoundAuthWorker extends WorkerEntrypoint {
  override fetch(request: Request): Promise<Response> {
    ledger.add("workerRequests");
    const app = boundApp(this.env as object, "strict");
    return app.fetch(request, app.env, this.ctx);
  }
}

/** The same, eventual revocation. */
export class EventualBoundAuthWorker extends WorkerEntrypoint {
  override fetch(request: Request): Promise<Response> {
    ledger.add("workerRequests");
    const app = boundApp(this.env as object, "eventual");
    return app.fetch(request, app.env, this.ctx);
  }
}

export default {
  fetch(request: Request, env: object, ctx: ExecutionContext): Promise<Response> {
    ledger.add("workerRequests");
    return auth.fetch(request, countedEnv(env), ctx);
  },
  connect: auth.connect,
};
