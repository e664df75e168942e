/**
 * Binding detection on real objects: one local binding of every kind miniflare
 * provides (D1, KV, R2, Queues, Durable Objects, Hyperdrive, service bindings),
 * stand-ins for the remote-only ones (AI, Vectorize, dispatch: stand-ins.ts),
 * plus things that are not bindings: vars, secrets, JSON, a Durable Object stub.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BINDING_CONVENTIONS, type BindingKind, detectBinding } from "../../client-sdk/registration";
import { AiStandIn, oneOfEachBinding } from "./stand-ins";

function everyKind(): Record<string, unknown> {
  return {
    ...oneOfEachBinding(),
    MODEL: new AiStandIn(),
    AUX_RPC: env.AUX_RPC,
    PORT: 8787,
    DEBUG: true,
    ORIGINS: ["https://a.example", "https://b.example"],
    NOTHING: null,
    A_STUB: env.COUNTERS.get(env.COUNTERS.idFromName("stub")),
  };
}

describe("detectBinding", () => {
  it("files every binding of a real env under the right kind and ignores everything else", () => {
    const detected = Object.fromEntries(
      Object.entries(everyKind()).map(([name, value]) => [name, detectBinding(name, value)]),
    );
    expect(detected).toEqual({
      DB: "sql",
      ANALYTICS: "sql",
      KV: "kv",
      CACHE: "kv",
      FILES: "objectStorage",
      JOBS: "queue",
      AI: "ai",
      MODEL: "ai",
      VECTORS: "vector",
      COUNTERS: "statefulObject",
      PG: "pooledDb",
      DISPATCHER: "dispatch",
      AUX: "service",
      AUX_RPC: "service",
      APP_NAME: null,
      FEATURE_FLAGS: null,
      API_SECRET: null,
      PORT: null,
      DEBUG: null,
      ORIGINS: null,
      NOTHING: null,
      A_STUB: null,
    } satisfies Record<string, BindingKind | null>);
  });

  it("is not fooled by RPC proxies that claim every method", () => {
    const stub = env.COUNTERS.get(env.COUNTERS.idFromName("proxy"));
    // Service bindings and stubs answer any name with a function: a naive check would call them KV, R2, D1…
    for (const proxy of [env.AUX, env.AUX_RPC, stub] as unknown as Record<string, unknown>[]) {
      for (const name of [
        "get",
        "put",
        "delete",
        "list",
        "getWithMetadata",
        "prepare",
        "batch",
        "exec",
        "send",
        "run",
      ]) {
        expect(typeof proxy[name]).toBe("function");
      }
    }
    expect(detectBinding("USERS", env.AUX)).toBe("service");
    expect(detectBinding("USERS", stub)).toBeNull();
    // A name convention never overrides the runtime class: a service binding called KV stays a service.
    expect(detectBinding("KV", env.AUX)).toBe("service");
    expect(detectBinding("DB", env.KV)).toBe("kv");
  });

  it("applies the naming conventions before duck typing", () => {
    expect(BINDING_CONVENTIONS).toEqual({ DB: "sql", KV: "kv", FILES: "objectStorage", AI: "ai" });
    // Something shaped like a KV namespace, bound as AI, is the AI binding.
    const kvShaped = { get() {}, getWithMetadata() {}, put() {}, delete() {}, list() {}, run() {} };
    expect(detectBinding("SOMETHING", kvShaped)).toBe("kv");
    expect(detectBinding("AI", kvShaped)).toBe("ai");
    // Conventions apply to bindings, not to vars that happen to share the name.
    expect(detectBinding("DB", "postgres://not-a-binding")).toBeNull();
    expect(detectBinding("AI", { model: "llama" })).toBeNull();
  });

  it("duck-types unknown classes in the spec's order, most specific first", () => {
    const shapes: [string, object][] = [
      ["objectStorage", { head() {}, get() {}, put() {}, delete() {}, list() {}, createMultipartUpload() {} }],
      ["kv", { get() {}, getWithMetadata() {}, put() {}, delete() {}, list() {} }],
      ["sql", { prepare() {}, batch() {}, exec() {} }],
      ["queue", { send() {}, sendBatch() {} }],
      ["ai", { run() {} }],
      ["vector", { query() {}, insert() {}, upsert() {}, deleteByIds() {} }],
      ["statefulObject", { idFromName() {}, idFromString() {}, newUniqueId() {}, get() {} }],
      ["pooledDb", { connectionString: "postgres://x", connect() {} }],
      ["dispatch", { get() {} }],
      ["service", { fetch() {} }],
    ];
    for (const [kind, shape] of shapes) expect(detectBinding("UNKNOWN", shape), kind).toBe(kind);
    expect(detectBinding("UNKNOWN", { connectionString: "postgres://x" })).toBeNull();
    expect(detectBinding("UNKNOWN", { get() {}, set() {} })).toBeNull();
    expect(detectBinding("UNKNOWN", () => "a function")).toBeNull();
  });

  it("files a proxy that answers every name by whether it can fetch", () => {
    const wildcard = (withFetch: boolean) =>
      new Proxy({} as Record<string | symbol, unknown>, {
        get: (_target, name) => (name === "fetch" && !withFetch ? undefined : () => undefined),
      });
    expect(detectBinding("X", wildcard(true))).toBe("service");
    expect(detectBinding("X", wildcard(false))).toBeNull();
  });
});
