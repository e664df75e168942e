import { createExecutionContext } from "cloudflare:test";
import { Application, GatehouseError, type Middleware, ServiceProvider, Token } from "gatehouse-workers";
import { describe, expect, it } from "vitest";

const Log = new Token<string[]>("Log");

class RecordingProvider extends ServiceProvider {
  constructor(
    readonly name: string,
    readonly log: string[],
  ) {
    super();
  }
  register(app: Application): void {
    this.log.push(`register:${this.name}`);
    if (!app.container.has(Log)) app.container.instance(Log, this.log);
  }
  override boot(app: Application): void {
    this.log.push(`boot:${this.name}`);
    app.hono.get(`/${this.name}`, (c) => c.text(this.name));
  }
}

describe("Application", () => {
  it("registers every provider in order, then boots them in order", async () => {
    const log: string[] = [];
    const app = Application.create(
      {},
      { providers: [new RecordingProvider("a", log), new RecordingProvider("b", log)] },
    );
    expect(log).toEqual(["register:a", "register:b", "boot:a", "boot:b"]);
    expect(app.container.resolve(Log)).toBe(log);
    const res = await app.fetch(new Request("http://x/b"));
    expect(await res.text()).toBe("b");
  });

  it("lets a provider resolve in boot what a later provider registered", () => {
    const Later = new Token<string>("Later");
    let seen = "";
    class First extends ServiceProvider {
      register() {}
      override boot(app: Application) {
        seen = app.container.resolve(Later);
      }
    }
    class Second extends ServiceProvider {
      register(app: Application) {
        app.container.instance(Later, "registered by second");
      }
    }
    Application.create({}, { providers: [new First(), new Second()] });
    expect(seen).toBe("registered by second");
  });

  it("answers an unknown route with 404 JSON naming it", async () => {
    const app = Application.create({});
    const res = await app.fetch(new Request("http://x/nope?q=1", { method: "POST" }));
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(await res.json()).toEqual({ error: "not_found", message: "No route for POST /nope" });
  });

  it("answers an unexpected error with 500 JSON that leaks nothing", async () => {
    const app = Application.create({});
    app.hono.get("/boom", () => {
      throw new Error("db password is hunter2");
    });
    const res = await app.fetch(new Request("http://x/boom"));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "internal_error", message: "Internal Server Error" });
    expect(text).not.toMatch(/hunter2|at |Error:/);
  });

  it("answers a typed client error with its status, code and message", async () => {
    const app = Application.create({});
    app.hono.get("/bad", () => {
      throw new GatehouseError("invalid_input", { status: 422, message: "name is required" });
    });
    const res = await app.fetch(new Request("http://x/bad"));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: "invalid_input", message: "name is required" });
  });

  it("does not leak the message of a typed server error", async () => {
    const app = Application.create({});
    app.hono.get("/bad", () => {
      throw new GatehouseError("store_down", { status: 503, message: "kv at 10.0.0.1 refused" });
    });
    const res = await app.fetch(new Request("http://x/bad"));
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: "store_down", message: "Internal Server Error" });
  });

  it("answers an error thrown by a middleware with 500 JSON", async () => {
    const failing: Middleware = {
      handle() {
        throw new Error("secret detail");
      },
    };
    const app = Application.create({}, { middleware: [failing] });
    app.hono.get("/", (c) => c.text("ok"));
    const res = await app.fetch(new Request("http://x/"));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal_error", message: "Internal Server Error" });
  });

  it("runs global middleware in order and lets one short-circuit", async () => {
    const order: string[] = [];
    const tag = (name: string): Middleware => ({
      async handle(_request, next) {
        order.push(`in:${name}`);
        const res = await next();
        order.push(`out:${name}`);
        return res;
      },
    });
    const gate: Middleware = {
      async handle(request, next) {
        if (new URL(request.url).searchParams.has("deny")) return new Response("denied", { status: 401 });
        return next();
      },
    };
    const app = Application.create({}, { middleware: [tag("a"), gate, tag("b")] });
    app.hono.get("/", (c) => {
      order.push("handler");
      return c.text("ok");
    });
    expect(await (await app.fetch(new Request("http://x/"))).text()).toBe("ok");
    expect(order).toEqual(["in:a", "in:b", "handler", "out:b", "out:a"]);
    order.length = 0;
    const denied = await app.fetch(new Request("http://x/?deny"));
    expect(denied.status).toBe(401);
    expect(order).toEqual(["in:a", "out:a"]);
  });

  it("is a fetch handler: Application.handler builds once per env", async () => {
    let built = 0;
    const handler = Application.handler({
      setup(app) {
        built++;
        app.hono.get("/", (c) => c.json({ env: Object.keys(c.env) }));
      },
    });
    const env = { A: "1" };
    const ctx = createExecutionContext();
    const res = await handler.fetch(new Request("http://x/"), env, ctx);
    await handler.fetch(new Request("http://x/"), env, ctx);
    expect(await res.json()).toEqual({ env: ["A"] });
    expect(built).toBe(1);
  });
});
