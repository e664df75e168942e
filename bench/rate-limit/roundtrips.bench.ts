/**
 * ratelimit.denied_roundtrips: store round trips for 1,000 requests from
 * one already-denied key within one window (goal 0). Counted twice, at both
 * ends: stubs the limiter asked its namespace for, and checks that reached
 * the Durable Object; the metric is the larger.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { compose } from "gatehouse-workers";
import { StatefulObjectClient } from "gatehouse-workers/bindings";
import { DORateLimiter } from "gatehouse-workers/rate-limit";
import { it } from "vitest";
import { record } from "../harness";
import type { CountingRateLimiterDO } from "./worker";

it("ratelimit.denied_roundtrips", async (ctx) => {
  const ns = env.COUNTING_LIMITER;
  let stubs = 0;
  const counted = {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => {
      stubs++;
      return ns.get(id);
    },
  } as unknown as DurableObjectNamespace;
  const now = Date.UTC(2100, 0, 1, 0, 0, 10);
  const prefix = `denied-${crypto.randomUUID()}:`;
  const limiter = new DORateLimiter(new StatefulObjectClient(counted), {
    limit: 5,
    window: 60,
    clock: () => now,
    prefix,
  });
  const run = compose([limiter], () => new Response("ok"));
  const key = "192.0.2.99";
  const request = () => new Request("https://app.test/", { headers: { "CF-Connecting-IP": key } });

  // Use up the window, and get denied once by the store.
  for (let i = 0; i < 6; i++) await run(request());
  const stub = ns.get(ns.idFromName(`${prefix}${key}`));
  const servedBefore = await runInDurableObject(stub, (o: CountingRateLimiterDO) => o.served);
  const stubsBefore = stubs;
  // The counters must see the calls that did happen, or a zero below would mean nothing.
  if (servedBefore !== 6 || stubsBefore !== 6) throw new Error(`counters broken: ${servedBefore}, ${stubsBefore}`);

  let limited = 0;
  for (let i = 0; i < 1_000; i++) if ((await run(request())).status === 429) limited++;
  if (limited !== 1_000) throw new Error(`only ${limited} of 1000 were limited`);

  const served = (await runInDurableObject(stub, (o: CountingRateLimiterDO) => o.served)) - servedBefore;
  const asked = stubs - stubsBefore;
  record(ctx, "ratelimit.denied_roundtrips", { value: Math.max(served, asked), unit: "round trips", goal: "= 0" });
  console.log("ratelimit.denied_roundtrips", { servedBefore, served, stubsAsked: asked });
});
