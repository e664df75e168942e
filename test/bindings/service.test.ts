/**
 * ServiceClient over real local service bindings to the auxiliary worker
 * aux/service.js: AUX is its default fetch handler, AUX_RPC its `AuxRpc`
 * WorkerEntrypoint (fetch plus an RPC method).
 */
import { env } from "cloudflare:workers";
import { BindingError, ServiceCallError, ServiceClient } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";
import { SERVICE_ORIGIN } from "../../client-sdk/bindings/service";

interface Echo {
  method: string;
  url: string;
  path: string;
  contentType: string | null;
  custom: string | null;
  body: string | null;
}

const echo = async (res: Response) => (await res.json()) as Echo;

describe("ServiceClient", () => {
  const aux = new ServiceClient(env.AUX);

  it("exposes the raw binding", () => {
    expect(aux.raw).toBe(env.AUX);
  });

  it("get sends GET to http://service{path}, with the caller's request options", async () => {
    const res = await aux.get("/users?active=1", { headers: { "x-custom": "yes" } });
    expect(await echo(res)).toEqual({
      method: "GET",
      url: `${SERVICE_ORIGIN}/users?active=1`,
      path: "/users",
      contentType: null,
      custom: "yes",
      body: null,
    });
  });

  it("post, put and patch send JSON bodies with Content-Type: application/json", async () => {
    for (const [method, send] of [
      ["POST", aux.post.bind(aux)],
      ["PUT", aux.put.bind(aux)],
      ["PATCH", aux.patch.bind(aux)],
    ] as const) {
      const got = await echo(
        await send("/users/1", { email: "ada@example.com", tags: [1] }, { headers: { "x-custom": "k" } }),
      );
      expect(got).toMatchObject({
        method,
        path: "/users/1",
        contentType: "application/json",
        custom: "k",
        body: '{"email":"ada@example.com","tags":[1]}',
      });
    }
    // Without a body: no body and no JSON content type.
    expect(await echo(await aux.post("/ping"))).toMatchObject({ method: "POST", body: "", contentType: null });
  });

  it("delete sends DELETE", async () => {
    expect(await echo(await aux.delete("/users/1"))).toMatchObject({ method: "DELETE", path: "/users/1" });
  });

  it("fetch is the low-level call; a path resolves against http://service", async () => {
    expect(await echo(await aux.fetch("/low", { method: "PUT", body: "raw" }))).toMatchObject({
      method: "PUT",
      url: `${SERVICE_ORIGIN}/low`,
      body: "raw",
    });
    expect((await echo(await aux.fetch("https://other.example/x"))).url).toBe("https://other.example/x");
  });

  it("non-2xx answers are returned as responses by the REST helpers", async () => {
    const res = await aux.get("/status/418");
    expect(res.status).toBe(418);
    expect(await res.text()).toBe("short and stout");
  });

  it("call POSTs { args } to /rpc/{method} and returns the parsed answer", async () => {
    expect(await aux.call<number>("add", 2, 3)).toBe(5);
    expect(await aux.call<string>("greet", "ada")).toBe("hello ada");
    expect(await aux.call("echo", { a: [1, null] }, "x")).toEqual([{ a: [1, null] }, "x"]);
    expect(await aux.call("nothing")).toBeUndefined();
  });

  it("call throws ServiceCallError with method, status and body on non-2xx", async () => {
    const failed = await aux.call("fail").catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ServiceCallError);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({
      name: "ServiceCallError",
      method: "fail",
      status: 500,
      body: "fail was asked to fail",
    });

    const missing = (await aux.call("noSuchMethod").catch((e: unknown) => e)) as ServiceCallError;
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: "no_such_method", method: "noSuchMethod" });
    expect(missing.message).toBe('Service call "noSuchMethod" failed with status 404');
  });

  it("call gives a clear error when a 2xx body is not JSON", async () => {
    const err = await aux.call("plainText").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BindingError);
    expect((err as BindingError).code).toBe("invalid_response");
    expect((err as BindingError).message).toBe(
      'ServiceClient.call("plainText"): status 200 answered a body that is not JSON (text/plain, 8 bytes)',
    );
  });

  it("rejects paths that do not start with / and bodies JSON cannot hold", async () => {
    for (const bad of [aux.get("users"), aux.post("https://evil.example/"), aux.put("/x", { n: 1n })]) {
      const err = await bad.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BindingError);
      expect((err as BindingError).code).toBe("invalid_argument");
    }
  });

  it("works over a binding to an RPC entrypoint, whose RPC methods stay reachable on raw", async () => {
    const rpc = new ServiceClient(env.AUX_RPC);
    expect(await echo(await rpc.post("/via-entrypoint", { ok: true }))).toMatchObject({
      method: "POST",
      body: '{"ok":true}',
    });
    const raw = rpc.raw as unknown as { add(a: number, b: number): Promise<number> };
    expect(await raw.add(20, 22)).toBe(42);
  });
});
