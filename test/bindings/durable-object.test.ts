/** StatefulObjectClient over a real local Durable Object namespace (fixture `Counter`). */
import { env } from "cloudflare:workers";
import { StatefulObjectClient } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";

describe("StatefulObjectClient", () => {
  const counters = new StatefulObjectClient(env.COUNTERS);

  it("exposes the raw binding", () => {
    expect(counters.raw).toBe(env.COUNTERS);
  });

  it("addresses one instance per name", async () => {
    const name = crypto.randomUUID();
    expect(await counters.get(name).increment()).toBe(1);
    expect(await counters.get(name).increment()).toBe(2);
    expect(await counters.get(`${name}-other`).increment()).toBe(1);
    expect(counters.get(name).id.equals(env.COUNTERS.idFromName(name))).toBe(true);
  });

  it("accepts a DurableObjectId as well", async () => {
    const id = env.COUNTERS.newUniqueId();
    expect(await counters.get(id).increment(5)).toBe(5);
    expect(await counters.get(id).increment()).toBe(6);
  });

  it("returns a stub that also answers fetch", async () => {
    const res = await counters.get(crypto.randomUUID()).fetch("http://counter/hit");
    expect(await res.json()).toEqual({ count: 1, path: "/hit" });
  });
});
