/**
 * auth.resolve_ratio: an authenticated request through AuthMiddleware
 * (cookie parse, HMAC verify, SHA-256 of the token, KV read, expiry checks)
 * versus a hand-written handler doing exactly one KV read and one HMAC
 * verify on the same real local KV, in the same run.
 * auth.kv_writes_per_1k: KV writes caused by 1,000 authenticated requests on
 * one session inside one refresh interval, counted on the real binding.
 */
import { env } from "cloudflare:workers";
import { compose } from "gatehouse-workers";
import { AuthMiddleware, currentUser, SessionManager } from "gatehouse-workers/auth";
import { it } from "vitest";
import { ratio, record } from "../harness";

const user = {
  id: "user_bench",
  email: "bench@acme.test",
  firstName: "Ben",
  lastName: "Ch",
  memberships: [{ organizationId: "org_acme", organizationSlug: "acme", role: "admin" }],
};

it("auth.resolve_ratio", async (ctx) => {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET);
  const { response } = await sessions.createSession(user);
  const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  const value = cookie.slice(cookie.indexOf("=") + 1);
  const [token, signature] = value.split(".") as [string, string];
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  const sessionId = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");

  const guarded = compose([new AuthMiddleware(sessions)], (req) => new Response(currentUser(req)!.id));

  // Baseline: one HMAC verify and one KV read, written by hand.
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(env.SESSION_SECRET),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const sig = Uint8Array.from(atob(signature.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));
  const data = new TextEncoder().encode(`session|${token}`);
  const bare = async (_req: Request) => {
    if (!(await crypto.subtle.verify("HMAC", key, sig, data))) return new Response("no", { status: 401 });
    const rec = await env.SESSIONS.get<{ userId: string }>(`sess:${sessionId}`, "json");
    return new Response(rec!.userId);
  };

  const req = () => new Request("https://app.test/", { headers: { Cookie: cookie } });
  const result = await ratio(
    async () => (await guarded(req())).text(),
    async () => (await bare(req())).text(),
    { batches: 60, batch: 200, warmup: 1_000 },
  );
  record(ctx, "auth.resolve_ratio", { value: result.ratio, unit: "x", goal: "<= 1.15" });
});

it("auth.kv_writes_per_1k", async (ctx) => {
  let writes = 0;
  const counting = new Proxy(env.SESSIONS, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "put") {
        return (...args: Parameters<KVNamespace["put"]>) => {
          writes++;
          return target.put(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const sessions = new SessionManager(counting, env.SESSION_SECRET);
  const { response } = await sessions.createSession(user);
  const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  const guarded = compose([new AuthMiddleware(sessions)], () => new Response("ok"));
  writes = 0;
  for (let i = 0; i < 1_000; i++) {
    const res = await guarded(new Request("https://app.test/", { headers: { Cookie: cookie } }));
    if (res.status !== 200) throw new Error(`request ${i} was not authenticated`);
  }
  record(ctx, "auth.kv_writes_per_1k", { value: writes, unit: "writes", goal: "0" });
});
