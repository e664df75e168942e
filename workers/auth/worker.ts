/**
 * @module
 * This repository's own auth worker (wrangler.toml): one caller of
 * `createAuthWorker`, with every default, exactly as a team's `src/index.ts`.
 */
import { createAuthWorker } from "./factory";

export default createAuthWorker();
export type { AuthWorkerEnv } from "./app";
export { AuthService, OrganizationSessions, RateLimiterDO, SsfStreams, UserSessions } from "./factory";
export type { RpcSession } from "./rpc/auth-service";
