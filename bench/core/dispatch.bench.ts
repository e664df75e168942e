/**
 * core.dispatch_ratio: an Application with one no-op middleware and one
 * route versus a bare module-worker fetch handler answering the same thing.
 * Both build the Request and read the Response body, as a real request does.
 * core.hono_vs_bare_ratio: a plain Hono app with the same route against the
 * same bare handler, in the same run: the router's own share of the first.
 */
import { Application, type Middleware } from "gatehouse-workers";
import { Hono } from "hono";
import { it } from "vitest";
import { ratio, record } from "../harness";

it("core.dispatch_ratio", async (ctx) => {
  const noop: Middleware = { handle: (_request, next) => next() };
  const app = Application.create({}, { middleware: [noop] });
  app.hono.get("/hello", () => new Response("hello"));
  const hono = new Hono();
  hono.get("/hello", () => new Response("hello"));
  const bare = { fetch: async (_request: Request) => new Response("hello") };
  const bareOnce = async () => (await bare.fetch(new Request("http://x/hello"))).text();

  const result = await ratio(async () => (await app.fetch(new Request("http://x/hello"))).text(), bareOnce);
  const router = await ratio(async () => (await hono.fetch(new Request("http://x/hello"))).text(), bareOnce);
  record(ctx, "core.dispatch_ratio", {
    value: result.ratio,
    unit: "x",
    goal: "<= 1.10",
    reason:
      "much of it is Hono's router, which Application keeps for its routes: a plain Hono app against the same bare handler in the same run is core.hono_vs_bare_ratio; Application's middleware chain comes on top. The bare handler only builds a Request and a Response, so the few microseconds routing and dispatch take per request are a large share of it; workerd's 1 ms clock over batches of a few ms also moves this figure by several per cent from run to run, around and above the goal.",
  });
  record(ctx, "core.hono_vs_bare_ratio", {
    value: router.ratio,
    unit: "x",
    goal: "reported (the router's share of core.dispatch_ratio)",
  });
  console.log("core.dispatch_ratio", result, "core.hono_vs_bare_ratio", router);
});
