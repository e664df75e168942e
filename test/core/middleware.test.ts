import { compose, getRequestValue, type Middleware, RequestKey, setRequestValue, toHono } from "gatehouse-workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";

const User = new RequestKey<string>("user");

const addHeader = (name: string): Middleware => ({
  async handle(_request, next) {
    const res = await next();
    const out = new Response(res.body, res);
    out.headers.append("x-trail", name);
    return out;
  },
});

const setUser: Middleware = {
  async handle(request, next) {
    setRequestValue(request, User, "ada");
    return next();
  },
};

describe("compose (fetch-native, no Hono)", () => {
  it("runs middleware outside-in and unwinds inside-out", async () => {
    const run = compose([addHeader("outer"), addHeader("inner")], () => new Response("ok"));
    const res = await run(new Request("http://x/"));
    expect(res.headers.get("x-trail")).toBe("inner, outer");
  });

  it("short-circuits when a middleware answers without next", async () => {
    let reached = false;
    const stop: Middleware = { handle: async () => new Response("stop", { status: 403 }) };
    const run = compose([stop, addHeader("never")], () => {
      reached = true;
      return new Response("ok");
    });
    const res = await run(new Request("http://x/"));
    expect(res.status).toBe(403);
    expect(reached).toBe(false);
  });

  it("passes a replacement request downstream, keeping request values", async () => {
    const rewrite: Middleware = {
      handle: (request, next) => next(new Request(request.url, { headers: { "x-rewritten": "1" } })),
    };
    const run = compose([setUser, rewrite], (req) =>
      Response.json({ header: req.headers.get("x-rewritten"), user: getRequestValue(req, User) }),
    );
    expect(await (await run(new Request("http://x/"))).json()).toEqual({ header: "1", user: "ada" });
  });

  it("refuses a second call to next", async () => {
    const twice: Middleware = {
      async handle(_request, next) {
        await next();
        return next();
      },
    };
    const run = compose([twice], () => new Response("ok"));
    await expect(run(new Request("http://x/"))).rejects.toThrow(/more than once/);
  });
});

describe("toHono adapter", () => {
  it("mounts a middleware and keeps its response changes", async () => {
    const app = new Hono();
    app.use(toHono(addHeader("mw")));
    app.get("/", (c) => {
      c.header("x-handler", "1");
      return c.text("ok");
    });
    const res = await app.request("/");
    expect(await res.text()).toBe("ok");
    expect(res.headers.get("x-trail")).toBe("mw");
    expect(res.headers.get("x-handler")).toBe("1");
  });

  it("returns a short-circuit answer without running the route", async () => {
    const app = new Hono();
    let reached = false;
    app.use(toHono({ handle: async () => new Response("no", { status: 429 }) }));
    app.get("/", (c) => {
      reached = true;
      return c.text("ok");
    });
    const res = await app.request("/");
    expect(res.status).toBe(429);
    expect(reached).toBe(false);
  });

  it("shares request values with Hono handlers", async () => {
    const app = new Hono();
    app.use(toHono(setUser));
    app.get("/", (c) => c.text(getRequestValue(c.req.raw, User) ?? "none"));
    expect(await (await app.request("/")).text()).toBe("ada");
  });
});
