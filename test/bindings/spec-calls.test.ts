/**
 * Issue 26 item 4: the spec's DispatchNamespaceClient calls, with exactly the spec's arguments
 * (../shared/SPEC.md, "DispatchNamespaceClient" and the DispatchOptions row), each test named after
 * its row. Dispatch namespaces exist only remotely (miniflare has no local one), so the namespace is
 * the stand-in of stand-ins.ts (DispatchNamespaceStandIn: the workers-types DispatchNamespace
 * interface, recording each `get`), which hands back real local workers ("gatehouse-customer-alpha",
 * "-beta") through service bindings. (PooledDbClient's rows are in hyperdrive.test.ts, beside the
 * other tests of its single-connection database.)
 */
import { env } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import {
  DispatchNamespaceClient,
  type DispatchOptions,
  PlatformServiceProvider,
  ServiceClient,
} from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";
import { DispatchNamespaceStandIn } from "./stand-ins";

/** The client as the spec builds it: from the raw binding alone, no limits or parameter names configured. */
function specClient() {
  const namespace = new DispatchNamespaceStandIn({ alpha: env.CUSTOMER_ALPHA, beta: env.CUSTOMER_BETA });
  return { namespace, client: new DispatchNamespaceClient(namespace) };
}

describe("SPEC: get raw(): DispatchNamespace", () => {
  it("is the underlying binding", () => {
    const { namespace, client } = specClient();
    expect(client.raw).toBe(namespace);
  });
});

describe("SPEC: dispatch(scriptName: string, options?: DispatchOptions): Fetcher", () => {
  it('returns the raw fetcher for the named customer script, with { trust: "untrusted" } and no limits configured', async () => {
    const { namespace, client } = specClient();
    const request = new Request("http://tenant/orders", { method: "POST", body: "{}" });
    const res = await client.dispatch("alpha", { trust: "untrusted" }).fetch(request);
    expect(await res.json()).toEqual({ customer: "alpha", method: "POST", path: "/orders" });
    // Untrusted without configured limits: the runtime's own limits apply, nothing is invented.
    expect(namespace.calls).toEqual([{ name: "alpha", args: undefined, options: undefined }]);
  });

  it("works without options, and as PlatformServiceProvider registers the client", async () => {
    const namespace = new DispatchNamespaceStandIn({ beta: env.CUSTOMER_BETA });
    const app = Application.create({ DISPATCHER: namespace }, { providers: [new PlatformServiceProvider()] });
    const client = app.container.resolve(DispatchNamespaceClient);
    expect(client.raw).toBe(namespace);
    expect(await (await client.dispatch("beta").fetch("http://tenant/x")).json()).toEqual({
      customer: "beta",
      method: "GET",
      path: "/x",
    });
    const untrusted = await client.dispatch("beta", { trust: "untrusted" }).fetch("http://tenant/y");
    expect(untrusted.status).toBe(200);
  });
});

describe("SPEC: dispatchClient(scriptName, options?): ServiceClient", () => {
  it("is the same, wrapped in a ServiceClient", async () => {
    const { client } = specClient();
    const beta = client.dispatchClient("beta", { trust: "untrusted" });
    expect(beta).toBeInstanceOf(ServiceClient);
    expect(await beta.call("sum", 1, 2)).toEqual({ customer: "beta", method: "sum", args: [1, 2] });
    expect(await (await client.dispatchClient("alpha").get("/z")).json()).toEqual({
      customer: "alpha",
      method: "GET",
      path: "/z",
    });
  });
});

describe("SPEC: DispatchOptions: trust? 'untrusted' | 'trusted'; outboundArgs? unknown[]", () => {
  it("takes every combination of the two optional fields", async () => {
    const { namespace, client } = specClient();
    const options: DispatchOptions[] = [
      {},
      { trust: "untrusted" },
      { trust: "trusted" },
      { outboundArgs: ["acme", { plan: "pro" }] },
      { trust: "trusted", outboundArgs: [] },
    ];
    for (const option of options) {
      const res = await client.dispatch("alpha", option).fetch("http://tenant/");
      expect(res.status).toBe(200);
    }
    // Without outboundParameters the array reaches the outbound Worker whole, as `args`.
    expect(namespace.calls.map((c) => c.options)).toEqual([
      undefined,
      undefined,
      undefined,
      { outbound: { args: ["acme", { plan: "pro" }] } },
      { outbound: { args: [] } },
    ]);
  });
});
