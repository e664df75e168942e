/**
 * ContainerClient. Containers cannot boot here (no Docker: the
 * @cloudflare/containers constructor throws without `ctx.container`), so the
 * client is driven against `ContainerStandIn`, a plain Durable Object bound as
 * CONTAINERS in wrangler.toml that answers like a container image would.
 */

import { env } from "cloudflare:workers";
import { Container } from "@cloudflare/containers";
import { BindingError, ContainerClient } from "gatehouse-workers/bindings";
import { CONTAINER_PORT, GatehouseContainer } from "gatehouse-workers/containers";
import { describe, expect, it } from "vitest";
import { CONTAINER_ORIGIN } from "../../client-sdk/bindings/container";

interface Echo {
  id: string;
  requests: number;
  method: string;
  url: string;
  contentType: string | null;
  body: string | null;
}

describe("ContainerClient", () => {
  const containers = new ContainerClient(env.CONTAINERS);

  it("exposes the raw binding", () => {
    expect(containers.raw).toBe(env.CONTAINERS);
  });

  it("getStub resolves one instance per name with idFromName", () => {
    const stub = containers.getStub("tenant-a");
    expect(stub.id.equals(env.CONTAINERS.idFromName("tenant-a"))).toBe(true);
    expect(stub.id.equals(containers.getStub("tenant-b").id)).toBe(false);
  });

  it("send makes an HTTP request to the named instance", async () => {
    const name = crypto.randomUUID();
    const res = await containers.send(name, "/render?x=1", {
      method: "POST",
      headers: { "content-type": "text/html" },
      body: "<p>hi</p>",
    });
    const echo = (await res.json()) as Echo;
    expect(echo).toMatchObject({
      id: env.CONTAINERS.idFromName(name).toString(),
      requests: 1,
      method: "POST",
      url: `${CONTAINER_ORIGIN}/render?x=1`,
      contentType: "text/html",
      body: "<p>hi</p>",
    });
    const again = (await (await containers.send(name, "/render")).json()) as Echo;
    expect(again).toMatchObject({ requests: 2, method: "GET", body: null });
    const other = (await (await containers.send(`${name}-2`, "/render")).json()) as Echo;
    expect(other.requests).toBe(1);
  });

  it("send rejects a path that does not start with /", async () => {
    const err = await containers.send("x", "render").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BindingError);
    expect((err as BindingError).code).toBe("invalid_argument");
  });

  it("warmup is true on a 2xx /health, false on non-2xx or error, and never throws", async () => {
    const name = crypto.randomUUID();
    expect(await containers.warmup(name)).toBe(true);
    await containers.send(name, "/state/sick");
    expect(await containers.warmup(name)).toBe(false);
    await containers.send(name, "/state/broken");
    expect(await containers.warmup(name)).toBe(false);
    await containers.send(name, "/state/healthy");
    expect(await containers.warmup(name)).toBe(true);
  });

  it("the real container class is exported, built on @cloudflare/containers", () => {
    expect(Object.getPrototypeOf(GatehouseContainer)).toBe(Container);
    expect(CONTAINER_PORT).toBe(8080);
  });
});
