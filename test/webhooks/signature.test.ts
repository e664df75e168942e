// What the route refuses before any work: wrong or missing signature, a timestamp outside the
// tolerance, a body that is not an event; and what it accepts without acting (unknown types).
// Every refusal is a 400 JSON answer and leaves the user's object untouched.

import { env } from "cloudflare:workers";
import { WorkOS } from "@workos-inc/node";
import fc from "fast-check";
import { fakeRateLimiter, restoreRateLimiter } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import {
  deliver,
  eventBody,
  freshUser,
  manager,
  membershipData,
  newSession,
  sessionData,
  storedMemberships,
  stubOf,
} from "./helpers";
import { authApplication } from "./worker";

const MINUTE = 60_000;

async function untouched(userId: string, sessionId: string) {
  expect(await storedMemberships(sessionId)).toEqual([
    { organizationId: "org_01ACME00000000000000000000", organizationSlug: "acme", role: "admin" },
  ]);
  expect(await stubOf(userId).providerEventStats()).toEqual({
    processedEvents: 0,
    providerMemberships: 0,
    pendingRewrites: 0,
  });
}

describe("the provider-side signer", () => {
  it("computes exactly what the SDK computes, for any body and secret", async () => {
    const sdk = new WorkOS("sk_test_unused", { clientId: "client_unused" });
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ minLength: 1 }), fc.nat(), async (body, secret, t) => {
        const header = await signWebhook(body, secret, t);
        const [timestamp, hash] = sdk.webhooks.getTimestampAndSignatureHash(header);
        expect(timestamp).toBe(String(t));
        expect(hash).toBe(await sdk.webhooks.computeSignature(String(t), body, secret));
      }),
      { numRuns: 50 },
    );
  });
});

describe("POST /webhooks/identity refuses", () => {
  it("a signature made with another secret (400 invalid_signature, nothing changed)", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const { res, body } = await deliver(eventBody("organization_membership.updated", membershipData(user, "member")), {
      secret: "whsec_someone_else",
    });
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: "invalid_signature", message: expect.any(String) });
    await untouched(user, s.sessionId);
  });

  it("a body changed after signing, for any change", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const original = eventBody("organization_membership.updated", membershipData(user, "member"));
    const signature = await signWebhook(original, env.IDENTITY_WEBHOOK_SECRET, Date.now());
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: original.length - 1 }),
        fc.string({ minLength: 1, maxLength: 3 }),
        async (at, s) => {
          const tampered = original.slice(0, at) + s + original.slice(at + 1);
          fc.pre(tampered !== original);
          const { res } = await deliver(tampered, { signature });
          expect(res.status).toBe(400);
        },
      ),
      { numRuns: 25 },
    );
    await untouched(user, s.sessionId);
  });

  it.each([
    ["no header", null],
    ["an empty header", ""],
    ["no v1 part", `t=${Date.now()}`],
    ["a non-numeric timestamp", "t=yesterday, v1=abcd"],
    ["a garbage header", "sha256=deadbeef"],
  ])("a request with %s (400 invalid_signature)", async (_, signature) => {
    const user = freshUser();
    const s = await newSession(user);
    const { res, body } = await deliver(eventBody("user.deleted", { id: user }), { signature });
    expect(res.status).toBe(400);
    expect(body.error).toBe("invalid_signature");
    await untouched(user, s.sessionId);
    const still = await manager().resolveUser(
      new Request("https://auth.example.com/", { headers: { Cookie: s.cookie } }),
    );
    expect(still?.id).toBe(user);
  });

  it.each([
    ["10 minutes old", -10 * MINUTE],
    ["10 minutes in the future", 10 * MINUTE],
  ])("a correct signature whose timestamp is %s (400 stale_timestamp)", async (_, offset) => {
    const user = freshUser();
    const s = await newSession(user);
    const { res, body } = await deliver(eventBody("user.deleted", { id: user }), { at: Date.now() + offset });
    expect(res.status).toBe(400);
    expect(body.error).toBe("stale_timestamp");
    await untouched(user, s.sessionId);
  });

  it("accepts a timestamp 4 minutes old (inside the 5-minute tolerance)", async () => {
    const { res } = await deliver(eventBody("user.created", { id: freshUser() }), { at: Date.now() - 4 * MINUTE });
    expect(res.status).toBe(200);
  });

  it.each([
    ["malformed JSON", '{"id": "event_1", "event": "user.deleted", '],
    ["a JSON array", "[]"],
    ["JSON null", "null"],
    [
      "an event without data",
      JSON.stringify({ id: "event_x1", event: "user.deleted", created_at: new Date().toISOString() }),
    ],
    [
      "a membership event without user_id",
      JSON.stringify({
        id: "event_x2",
        event: "organization_membership.updated",
        data: { organization_id: "org_1", status: "active", role: { slug: "admin" } },
        created_at: new Date().toISOString(),
      }),
    ],
    [
      "an active membership without a role",
      JSON.stringify({
        id: "event_x3",
        event: "organization_membership.created",
        data: { user_id: "user_1", organization_id: "org_1", status: "active" },
        created_at: new Date().toISOString(),
      }),
    ],
    [
      "a session event with a bad created_at",
      JSON.stringify({
        id: "event_x4",
        event: "session.revoked",
        data: sessionData("user_1", "session_1"),
        created_at: "soon",
      }),
    ],
    ["an event id that is not an id", eventBody("user.deleted", { id: "user_1" }, { id: "../../etc" })],
  ])("%s, correctly signed (400 malformed_body)", async (_, payload) => {
    const { res, body } = await deliver(payload);
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: "malformed_body", message: expect.any(String) });
  });

  it("a body over 256 KiB (413)", async () => {
    const { res, body } = await deliver(eventBody("user.created", { id: "user_1", padding: "x".repeat(300_000) }));
    expect(res.status).toBe(413);
    expect(body.error).toBe("payload_too_large");
  });

  it("answers 503 not_configured without IDENTITY_WEBHOOK_SECRET", async () => {
    const app = authApplication({ ...env, IDENTITY_WEBHOOK_SECRET: undefined } as unknown as typeof env);
    const body = eventBody("user.created", { id: "user_1" });
    const res = await app.fetch(
      new Request("https://auth.example.com/webhooks/identity", {
        method: "POST",
        headers: { [WEBHOOK_SIGNATURE_HEADER]: await signWebhook(body, "anything", Date.now()) },
        body,
      }),
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: "not_configured" });
  });
});

describe("POST /webhooks/identity is rate-limited", () => {
  afterEach(() => restoreRateLimiter());

  it("per client address: 429 with Retry-After, nothing changed", async () => {
    const fake = fakeRateLimiter();
    fake.limitKey("203.0.113.9");
    const user = freshUser();
    const s = await newSession(user);
    const body = eventBody("user.deleted", { id: user });
    const limited = await deliver(body, { headers: { "CF-Connecting-IP": "203.0.113.9", Accept: "application/json" } });
    expect(limited.res.status).toBe(429);
    expect(limited.res.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(limited.body).toMatchObject({ error: "rate_limited" });
    await untouched(user, s.sessionId);
    const other = await deliver(body, { headers: { "CF-Connecting-IP": "198.51.100.4" } });
    expect(other.res.status).toBe(200);
    fake.assertChecked("198.51.100.4");
  });

  it("answers with the draft RateLimit headers (600 per minute, the RATE_LIMITER object counting)", async () => {
    const { res } = await deliver(eventBody("user.created", { id: freshUser() }), {
      headers: { "CF-Connecting-IP": "192.0.2.77" },
    });
    expect(res.headers.get("RateLimit-Policy")).toBe('"auth-webhooks";q=600;w=60');
    expect(res.headers.get("RateLimit")).toMatch(/^"auth-webhooks";r=599;t=\d+$/);
  });
});

describe("POST /webhooks/identity ignores", () => {
  it("an unknown event type: 200, handled false, the user's object untouched", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const { res, body } = await deliver(eventBody("user.created", { id: user, email: "x@acme.test" }));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: false });
    await untouched(user, s.sessionId);
  });

  it.each([
    ["a type nobody knows", "example.something_happened"],
    ["a type the SDK knows but Gatehouse does not handle, with odd data", "dsync.group.user_added"],
  ])("%s, whatever its data: 200", async (_, type) => {
    const { res, body } = await deliver(eventBody(type, { nothing: [1, 2, 3] }));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: false });
  });
});
