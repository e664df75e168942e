/**
 * DispatchNamespaceClient. Dispatch namespaces have no local implementation
 * (miniflare offers them only as remote bindings), so the namespace is a
 * stand-in (stand-ins.ts) that follows DispatchNamespace's interface and hands
 * back real local workers: service bindings to the auxiliary workers
 * "gatehouse-customer-alpha", "-beta" and "gatehouse-aux" (an RPC entrypoint).
 */
import { env } from "cloudflare:workers";
import { BindingError, DispatchNamespaceClient, ServiceClient } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";
import { DispatchNamespaceStandIn } from "./stand-ins";

const scripts = () => ({ alpha: env.CUSTOMER_ALPHA, beta: env.CUSTOMER_BETA, rpc: env.AUX_RPC });

async function rejection(promise: Promise<unknown>): Promise<BindingError> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(BindingError);
  return err as BindingError;
}

describe("DispatchNamespaceClient", () => {
  it("exposes the raw binding", () => {
    const namespace = new DispatchNamespaceStandIn(scripts());
    expect(new DispatchNamespaceClient(namespace).raw).toBe(namespace);
  });

  it("dispatch returns the named customer script's fetcher", async () => {
    const client = new DispatchNamespaceClient(new DispatchNamespaceStandIn(scripts()));
    const res = await client.dispatch("alpha").fetch("http://tenant/hello");
    expect(await res.json()).toEqual({ customer: "alpha", method: "GET", path: "/hello" });
    const req = new Request("http://tenant/from-request", { method: "POST", body: "x" });
    expect(await (await client.dispatch("beta").fetch(req)).json()).toEqual({
      customer: "beta",
      method: "POST",
      path: "/from-request",
    });
  });

  it("dispatchClient wraps the script in a ServiceClient", async () => {
    const client = new DispatchNamespaceClient(new DispatchNamespaceStandIn(scripts()));
    const beta = client.dispatchClient("beta");
    expect(beta).toBeInstanceOf(ServiceClient);
    expect(await beta.call("sum", 1, 2)).toEqual({ customer: "beta", method: "sum", args: [1, 2] });
    expect(await (await beta.get("/x")).json()).toEqual({ customer: "beta", method: "GET", path: "/x" });
  });

  it("keeps the script's RPC methods reachable through the returned fetcher", async () => {
    const client = new DispatchNamespaceClient(new DispatchNamespaceStandIn(scripts()));
    const rpc = client.dispatch("rpc") as unknown as { add(a: number, b: number): Promise<number> };
    expect(await rpc.add(1, 2)).toBe(3);
  });

  it("names an unknown script, when the runtime reports it at fetch time", async () => {
    const client = new DispatchNamespaceClient(new DispatchNamespaceStandIn(scripts(), "fetch"));
    const err = await rejection(client.dispatch("ghost").fetch("http://tenant/"));
    expect(err.code).toBe("script_not_found");
    expect(err.status).toBe(404);
    expect(err.message).toBe('No script named "ghost" in the dispatch namespace');
    expect((await rejection(client.dispatchClient("ghost").call("x"))).message).toContain('"ghost"');
  });

  it("names an unknown script, when get itself throws", () => {
    const client = new DispatchNamespaceClient(new DispatchNamespaceStandIn(scripts(), "get"));
    expect(() => client.dispatch("ghost")).toThrowError(/No script named "ghost"/);
  });

  it("maps trust onto per-call limits and outboundArgs onto the outbound Worker's parameters", () => {
    const namespace = new DispatchNamespaceStandIn(scripts());
    const limits = { cpuMs: 50, subRequests: 10 };
    const client = new DispatchNamespaceClient(namespace, {
      untrustedLimits: limits,
      outboundParameters: ["customer", "plan"],
    });
    client.dispatch("alpha");
    client.dispatch("alpha", { trust: "untrusted", outboundArgs: ["acme", "pro"] });
    client.dispatch("alpha", { trust: "trusted", outboundArgs: ["acme"] });
    client.dispatch("alpha", { trust: "trusted" });
    expect(namespace.calls).toEqual([
      { name: "alpha", args: undefined, options: { limits } },
      { name: "alpha", args: undefined, options: { limits, outbound: { customer: "acme", plan: "pro" } } },
      { name: "alpha", args: undefined, options: { outbound: { customer: "acme" } } },
      { name: "alpha", args: undefined, options: undefined },
    ]);
  });

  it("passes outboundArgs whole as `args` when no parameter names are configured", () => {
    const namespace = new DispatchNamespaceStandIn(scripts());
    new DispatchNamespaceClient(namespace).dispatch("alpha", { outboundArgs: [1, { a: 2 }] });
    expect(namespace.calls[0]?.options).toEqual({ outbound: { args: [1, { a: 2 }] } });
  });

  it("rejects bad options with clear errors", () => {
    const client = new DispatchNamespaceClient(new DispatchNamespaceStandIn(scripts()), {
      outboundParameters: ["one"],
    });
    expect(() => client.dispatch("")).toThrowError(BindingError);
    expect(() => client.dispatch("alpha", { outboundArgs: [1, 2] })).toThrowError(/2 outboundArgs but only 1/);
    expect(() => client.dispatch("alpha", { trust: "sometimes" as "trusted" })).toThrowError(/unknown trust/);
  });
});
