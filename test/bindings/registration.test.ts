/**
 * PlatformServiceProvider: `Application.create(env)` with one binding of every
 * kind (real local bindings; stand-ins for AI, Vectorize and dispatch, see
 * stand-ins.ts) registers a wrapper per binding, by name and by class.
 */
import { env } from "cloudflare:workers";
import { Application, ContainerError, ServiceProvider } from "gatehouse-workers";
import {
  AIClient,
  DispatchNamespaceClient,
  KVStore,
  ObjectStorage,
  PlatformServiceProvider,
  PooledDbClient,
  QueueSender,
  ServiceClient,
  SqlDatabase,
  StatefulObjectClient,
  VectorStore,
} from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";
import { oneOfEachBinding } from "./stand-ins";

const testEnv = oneOfEachBinding;

const create = (e: object = testEnv()) => Application.create(e, { providers: [new PlatformServiceProvider()] });

describe("PlatformServiceProvider", () => {
  it("registers every binding by its name, wrapped in the right class", () => {
    const { container } = create();
    const expected: [string, abstract new (...args: never[]) => unknown][] = [
      ["DB", SqlDatabase],
      ["ANALYTICS", SqlDatabase],
      ["KV", KVStore],
      ["CACHE", KVStore],
      ["FILES", ObjectStorage],
      ["JOBS", QueueSender],
      ["AI", AIClient],
      ["VECTORS", VectorStore],
      ["COUNTERS", StatefulObjectClient],
      ["PG", PooledDbClient],
      ["DISPATCHER", DispatchNamespaceClient],
      ["AUX", ServiceClient],
    ];
    for (const [name, Wrapper] of expected) expect(container.resolve(name), name).toBeInstanceOf(Wrapper);
    expect(container.resolve<KVStore>("CACHE").raw).toBe(env.CACHE);
    for (const plain of ["APP_NAME", "FEATURE_FLAGS", "API_SECRET"]) expect(container.has(plain)).toBe(false);
  });

  it("resolves by class when exactly one binding has that kind, to the same singleton", () => {
    const { container } = create();
    expect(container.resolve(ObjectStorage)).toBe(container.resolve("FILES"));
    expect(container.resolve(ObjectStorage)).toBe(container.resolve(ObjectStorage));
    expect(container.resolve(QueueSender).raw).toBe(env.JOBS);
    expect(container.resolve(PooledDbClient).raw).toBe(env.PG);
    expect(container.resolve(ServiceClient).raw).toBe(env.AUX);
    expect(container.resolve(AIClient)).toBe(container.resolve("AI"));
    expect(container.resolve(StatefulObjectClient).raw).toBe(env.COUNTERS);
  });

  it("refuses to pick between two bindings of a kind, and names them", () => {
    const { container } = create();
    expect(() => container.resolve(KVStore)).toThrowError(ContainerError);
    expect(() => container.resolve(KVStore)).toThrowError('Several bindings are a KVStore ("KV", "CACHE")');
    const err = (() => {
      try {
        container.resolve(SqlDatabase);
      } catch (e) {
        return e as ContainerError;
      }
    })();
    expect(err?.code).toBe("ambiguous");
    expect(err?.message).toContain('"DB", "ANALYTICS"');
    // By name, both are there.
    expect(container.resolve<SqlDatabase>("ANALYTICS").raw).toBe(env.ANALYTICS);
  });

  it("does not replace what another provider registered first", () => {
    const mine = new KVStore(env.CACHE);
    type TestEnv = ReturnType<typeof testEnv>;
    class Earlier extends ServiceProvider<TestEnv> {
      register(app: Application<TestEnv>): void {
        app.container.instance("KV", mine);
        app.container.instance(ObjectStorage, new ObjectStorage(env.FILES));
      }
    }
    const app = Application.create(testEnv(), { providers: [new Earlier(), new PlatformServiceProvider()] });
    expect(app.container.resolve("KV")).toBe(mine);
    expect(app.container.resolve(ObjectStorage)).not.toBe(app.container.resolve("FILES"));
  });

  it("gives route handlers working wrappers", async () => {
    const app = create();
    app.hono.get("/notes/:key", async (c) => {
      const kv = app.container.resolve<KVStore>("KV");
      await kv.put(`note:${c.req.param("key")}`, "saved");
      return c.json({ value: await kv.get(`note:${c.req.param("key")}`) });
    });
    const res = await app.fetch(new Request("http://app/notes/a"));
    expect(await res.json()).toEqual({ value: "saved" });
  });
});
