/**
 * Issue 14 finding 4, consumer side: every answer of the example consumer (pages, JSON,
 * redirects to the login, 401/403/404/429, the auth worker down or misconfigured) carries
 * nosniff, a Referrer-Policy, framing refused, a CSP on HTML and HSTS over https, and no body
 * shows a stack trace or a file path. The routes are those of workers/example-consumer/routes.ts.
 */
import { env } from "cloudflare:workers";
import { fakeRateLimiter, restoreRateLimiter } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import consumer, { type ConsumerEnv } from "../../../workers/example-consumer/worker";
import { people, signIn } from "../../consumer/helpers";
import { API, BROWSER, HeaderWalk } from "../helpers/headers";

type Binding = "AUTH" | "AUTH_DOWN" | "AUTH_MISCONFIGURED";
const envs = new Map<Binding, ConsumerEnv>();

/** The consumer with AUTH bound to the real auth worker, one that is down, or one without its secret. */
function envWith(binding: Binding): ConsumerEnv {
  let e = envs.get(binding);
  if (!e) {
    e = { ...env, AUTH: env[binding] } as ConsumerEnv;
    envs.set(binding, e);
  }
  return e;
}

/** One walk over one origin through the example consumer's fetch handler, AUTH bound per probe. */
class Walk extends HeaderWalk<Binding> {
  constructor(origin: string) {
    super(origin, "AUTH", (request, binding, ctx) =>
      consumer.fetch(request as Parameters<typeof consumer.fetch>[0], envWith(binding), ctx),
    );
  }
}

const PATHS = [
  "/",
  "/dashboard",
  "/org/acme/dashboard",
  "/org/globex/dashboard",
  "/org/acme/admin",
  "/org/nope/admin",
  "/org/%3Cscript%3E/dashboard",
  "/api/me",
  "/api/quota",
  "/logout",
  "/no/such/page",
  `/${"a".repeat(4000)}`,
] as const;

async function walkConsumer(walk: Walk): Promise<void> {
  const member = people.alan(); // a member of acme: the admin page answers 403
  const admin = people.ada();
  const memberSession = await signIn(member);
  const adminSession = await signIn(admin);
  const visitors = [
    ["signed out", undefined],
    ["member", memberSession.cookie],
    ["admin", adminSession.cookie],
    ["forged cookie", `${adminSession.cookie}x`],
  ] as const;

  for (const [who, cookie] of visitors) {
    for (const [kind, accept] of [
      ["browser", BROWSER],
      ["api", API],
    ] as const) {
      const headers: Record<string, string> = { ...accept, ...(cookie ? { Cookie: cookie } : {}) };
      for (const path of PATHS) {
        await walk.send(`${who} ${kind} GET`, path, { headers });
        await walk.send(`${who} ${kind} POST`, path, { method: "POST", headers, body: "x=1" });
      }
    }
  }

  // The auth worker unreachable, and misconfigured: the public page stays up, guarded routes refuse.
  for (const binding of ["AUTH_DOWN", "AUTH_MISCONFIGURED"] as const) {
    for (const path of PATHS) {
      await walk.send(`${binding} browser`, path, { headers: { ...BROWSER, Cookie: adminSession.cookie } }, binding);
      await walk.send(`${binding} api`, path, { headers: { ...API, Cookie: adminSession.cookie } }, binding);
    }
  }

  // The metered API past its quota: 429 with Retry-After. The fixture auth worker has no
  // RATE_LIMITER, so the SDK's rate-limit fake marks this user limited; the consumer's own
  // limiter middleware still builds the answer.
  const heavy = people.ada();
  const heavySession = await signIn(heavy);
  const fake = fakeRateLimiter();
  try {
    fake.limitKey(heavy.id);
    for (const [kind, accept] of [
      ["browser", BROWSER],
      ["api", API],
    ] as const) {
      const res = await walk.send(`quota ${kind}`, "/api/quota", {
        headers: { ...accept, Cookie: heavySession.cookie },
      });
      expect(res.status).toBe(429);
    }
  } finally {
    restoreRateLimiter();
  }
}

describe("security headers on every answer of the example consumer", () => {
  for (const origin of ["https://app.example.com", "http://app.example.com"]) {
    it(`walks every route over ${new URL(origin).protocol}`, async () => {
      const walk = new Walk(origin);
      await walkConsumer(walk);
      expect(walk.count).toBeGreaterThan(200);
      for (const status of [200, 302, 401, 403, 404, 429]) expect(walk.statuses, `status ${status}`).toContain(status);
      expect([...walk.statuses].some((s) => s >= 500)).toBe(true);
      expect(walk.problems).toEqual([]);
    });
  }
});
