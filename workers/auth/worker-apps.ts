/**
 * @module
 * This repository's auth worker as wrangler.toml serves and deploys it (`npm start`, the browser
 * tests, the load leg): worker.ts's defaults plus one option, `apps`, naming the example consumer
 * (workers/example-consumer), so a revocation also closes its live counter's sockets (wrangler.toml
 * binds APP_EXAMPLE to its `GatehouseRevocations` entrypoint). worker.ts stays every default: the
 * workerd test projects run it under configurations that bind no app.
 */
import { createAuthWorker } from "./factory";

export default createAuthWorker({ apps: { example: { binding: "APP_EXAMPLE" } } });
export type { AuthWorkerEnv } from "./app";
export { AuthService, OrganizationSessions, RateLimiterDO, SsfStreams, UserSessions } from "./factory";
