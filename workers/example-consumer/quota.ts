/**
 * @module
 * `GET /api/quota`: the example consumer's metered API call. Each call counts
 * against the signed-in user's quota of 100 calls per 10 minutes, shared by
 * every instance of this worker and counted exactly in the auth worker's
 * `RateLimiterDO` (`AuthServiceRateLimiter`). Past it: 429 JSON with
 * `Retry-After` (a browser's navigation: a page saying how long to wait); the
 * draft-10 `RateLimit` headers tell what is left. It must
 * be registered after the `/api/*` guard: the key is the user's id.
 */
import { type Application, type Middleware, Token, toHono } from "gatehouse-workers";
import { AuthServiceClient, currentUser } from "gatehouse-workers/client";
import type { ConsumerEnv } from "./env";
import { rateLimitedPage, withErrorPages } from "./error-pages";
import { AuthServiceRateLimiter } from "./limiter";

/** Calls per user and window (seconds). `npm run load` drives this route to exactly `limit` admitted. */
export const QUOTA = { limit: 100, window: 600, prefix: "example:quota:", policyName: "quota" } as const;

export const QuotaLimiter = new Token<AuthServiceRateLimiter>("ExampleConsumer.QuotaLimiter");

export function registerQuotaRoute(app: Application<ConsumerEnv>): void {
  app.container.singleton(
    QuotaLimiter,
    (c) =>
      new AuthServiceRateLimiter(c.resolve(AuthServiceClient), {
        ...QUOTA,
        // Behind the /api/* guard there is always a user; "anonymous" only if the route is mounted without it.
        keyExtractor: (request) => currentUser(request)?.id ?? "anonymous",
      }),
  );
  // Built on first use, like the guards: a missing binding answers JSON instead of failing at startup.
  const limiter: Middleware = { handle: (req, next) => app.container.resolve(QuotaLimiter).handle(req, next) };
  // A browser that opens the route past its quota gets a page saying how long to wait; JSON clients the 429 as is.
  const paged = withErrorPages(limiter, (request, answer) =>
    answer.status === 429 ? rateLimitedPage(request, answer, { api: true }) : null,
  );
  app.hono.use("/api/quota", toHono(paged));
  app.hono.get("/api/quota", (ctx) =>
    ctx.json({ userId: currentUser(ctx.req.raw)!.id, limit: QUOTA.limit, windowSeconds: QUOTA.window }),
  );
}
