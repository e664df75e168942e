/**
 * What left a user's session object in these tests: the webhook deliveries the auxiliary receiver
 * (receiver.js) kept, and the SECURITY_EVENTS queue messages the consumer (worker.ts) stored.
 * A test can also tell the receiver to refuse a user's next deliveries.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import { eventually } from "./helpers";

export interface Delivery {
  userId: string;
  method: string;
  url: string;
  contentType: string | null;
  eventId: string | null;
  signature: string | null;
  status: number;
  body: string;
}

/** What the receiver got for this user, in arrival order. */
export async function received(userId: string): Promise<Delivery[]> {
  const res = await fetch(`https://receiver.control/received?user=${encodeURIComponent(userId)}`);
  return (await res.json()) as Delivery[];
}

export async function failNext(userId: string, times: number): Promise<void> {
  const res = await fetch(`https://receiver.control/fail?user=${encodeURIComponent(userId)}&times=${times}`, {
    method: "POST",
  });
  expect(res.status).toBe(204);
}

/** Queue messages the consumer stored for this user, once `count` arrived (bounded wait: real delivery). */
export async function queued(userId: string, count: number): Promise<SecurityEvent[]> {
  return eventually(
    async () => {
      const { keys } = await env.RECEIVED.list({ prefix: `queue:${userId}:` });
      if (keys.length < count) return null;
      const values = await Promise.all(keys.map((k) => env.RECEIVED.get<{ event: SecurityEvent }>(k.name, "json")));
      return values.map((v) => v!.event);
    },
    10_000,
    `${count} queue messages for ${userId}`,
  );
}
