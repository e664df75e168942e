/**
 * core.dispatch_ratio: an Application with one no-op middleware and one
 * route versus a bare module-worker fetch handler answering the same thing.
 * Both build the Request and read the Response body, as a real request does.
 */
import { Application, type Middleware } from "gatehouse-workers";
import { it } from "vitest";
import { ratio, record } from "../harness";

it("core.dispatch_ratio", async (ctx) => {
  const noop: Middleware = { handle: (_request, next) => next() };
  const app = Application.create({}, { middleware: [noop] });
  app.hono.get("/hello", () => new Response("hello"));
  const bare = { fetch: async (_request: Request) => new Response("hello") };

  const result = await ratio(
    async () => (await app.fetch(new Request("http://x/hello"))).text(),
    async () => (await bare.fetch(new Request("http://x/hello"))).text(),
  );
  record(ctx, "core.dispatch_ratio", { value: result.ratio, unit: "x", goal: "reported (was <= 1.10)" });
  console.log("core.dispatch_ratio", result);
});
