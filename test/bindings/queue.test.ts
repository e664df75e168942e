/**
 * QueueSender over a real local Queues producer. The fixture worker's queue
 * consumer (worker.ts) records each message it receives in KV; tests wait for
 * delivery with a bounded poll.
 */
import { env } from "cloudflare:workers";
import { QueueSender } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";

interface Job {
  marker: string;
  n: number;
  payload?: unknown;
}

/** The bodies the consumer received for `marker`, once `count` arrived (or after ~15 s). */
async function received(marker: string, count: number): Promise<Job[]> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const { keys } = await env.KV.list({ prefix: `queue:${marker}:` });
    if (keys.length >= count) {
      const values = await Promise.all(keys.map((k) => env.KV.get<{ body: Job }>(k.name, "json")));
      return values.map((v) => v!.body).sort((a, b) => a.n - b.n);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return [];
}

describe("QueueSender", () => {
  const jobs = new QueueSender<Job>(env.JOBS);

  it("exposes the raw binding", () => {
    expect(jobs.raw).toBe(env.JOBS);
  });

  it("send delivers one message to the consumer", async () => {
    const marker = crypto.randomUUID();
    await expect(jobs.send({ marker, n: 1, payload: { userId: "u_1" } })).resolves.toBeUndefined();
    expect(await received(marker, 1)).toEqual([{ marker, n: 1, payload: { userId: "u_1" } }]);
  });

  it("sendBatch delivers several messages in one operation", async () => {
    const marker = crypto.randomUUID();
    await jobs.sendBatch([1, 2, 3].map((n) => ({ body: { marker, n } })));
    expect(await received(marker, 3)).toEqual([
      { marker, n: 1 },
      { marker, n: 2 },
      { marker, n: 3 },
    ]);
  });

  it("passes send options through (a message with a content type)", async () => {
    const marker = crypto.randomUUID();
    await jobs.send({ marker, n: 7 }, { contentType: "json" });
    expect(await received(marker, 1)).toEqual([{ marker, n: 7 }]);
  });

  it("rejects what Queues rejects", async () => {
    await expect(jobs.send(undefined as unknown as Job)).rejects.toThrow();
  });
});
