/**
 * The worker under test: the deployed auth worker, its Durable Objects, and
 * one twin per outage. `KvDown`, `SessionObjectsDown` and `LimiterDown` serve
 * the auth worker's own routes with that binding failing; the `*AuthService`
 * classes are its RPC entrypoint in the same state (wrangler.toml binds them all
 * back to this worker as services). The broken object classes
 * throw from inside the Durable Object, as a failing object would.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { RateLimiterDO } from "gatehouse-workers/durable-objects";
import type {
  RateCheckBatchCall,
  RateCheckBatchResult,
  RateCheckCall,
  RateCheckResult,
} from "gatehouse-workers/rate-limit";
import { authApplication } from "../../workers/auth/app";
import { AuthService, type AuthWorkerEnv, UserSessions } from "../../workers/auth/worker";
import { INTERNAL_DETAIL, type Outage, withOutage } from "./broken";

export { AuthService, default, RateLimiterDO, UserSessions } from "../../workers/auth/worker";

/** A session object whose every call fails inside the object. */
export class BrokenUserSessions extends UserSessions {
  override register(): never {
    throw new Error(INTERNAL_DETAIL);
  }
  override isActive(): never {
    throw new Error(INTERNAL_DETAIL);
  }
  override list(): never {
    throw new Error(INTERNAL_DETAIL);
  }
  override touch(): never {
    throw new Error(INTERNAL_DETAIL);
  }
  override revoke(): Promise<never> {
    return Promise.reject(new Error(INTERNAL_DETAIL));
  }
  override revokeAll(): Promise<never> {
    return Promise.reject(new Error(INTERNAL_DETAIL));
  }
  override revokeOthers(): Promise<never> {
    return Promise.reject(new Error(INTERNAL_DETAIL));
  }
}

/** A rate-limit object whose every check fails. */
export class BrokenRateLimiterDO extends RateLimiterDO {
  override check(_call: RateCheckCall): RateCheckResult {
    throw new Error(INTERNAL_DETAIL);
  }
  override checkBatch(_call: RateCheckBatchCall): RateCheckBatchResult {
    throw new Error(INTERNAL_DETAIL);
  }
}

type Env = AuthWorkerEnv & Cloudflare.Env;

function serve(outage: Outage, request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  return authApplication(withOutage(env, outage)).fetch(request, env, ctx);
}

export class KvDown extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return serve("kv", request, this.env, this.ctx);
  }
}

export class SessionObjectsDown extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return serve("user-sessions", request, this.env, this.ctx);
  }
}

export class LimiterDown extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return serve("rate-limiter", request, this.env, this.ctx);
  }
}

export class KvDownAuthService extends AuthService {
  constructor(ctx: ExecutionContext, env: Env) {
    super(ctx, withOutage(env, "kv"));
  }
}

export class SessionObjectsDownAuthService extends AuthService {
  constructor(ctx: ExecutionContext, env: Env) {
    super(ctx, withOutage(env, "user-sessions"));
  }
}

export class LimiterDownAuthService extends AuthService {
  constructor(ctx: ExecutionContext, env: Env) {
    super(ctx, withOutage(env, "rate-limiter"));
  }
}
