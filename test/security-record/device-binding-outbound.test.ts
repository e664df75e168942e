/**
 * Device binding's timeline events leave the object like every other (issue 30): a binding
 * (`session.device_bound`), a refused refresh proof (`session.device_refresh_failed`) and a bound
 * session refused while its browser said it skipped the refresh (`session.refused`,
 * `device_refresh_skipped`) each reach the signed webhook (verified with the documented recipe,
 * `verifySecurityEvent`) and the SECURITY_EVENTS queue, once. The browser is the DBSC reference
 * client (test/sessions/dbsc-client.ts). One clock, a day ahead, drives the worker and the objects,
 * so the runtime never fires the delivery alarm by itself; the test runs it.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import { verifySecurityEvent } from "../../client-sdk/security-events";
import { DbscClient, refreshRequestHeaders, registrationRequestHeaders } from "../sessions/dbsc-client";
import { queued, received } from "./deliveries";
import { allEvents, freshUser, manager, ORIGIN, signIn, stubOf } from "./helpers";

let now = 0;
beforeEach(() => {
  now = Date.now() + 24 * 3600 * 1000;
  setObjectClock(() => now);
});
afterEach(() => setObjectClock(null));

const quoted = (header: string | null, pattern: RegExp) => pattern.exec(header ?? "")?.[1] ?? "";

const DEVICE_TYPES = ["session.device_bound", "session.device_refresh_failed", "session.refused"];

describe("device binding's events, outbound", () => {
  it("the binding, a refused refresh proof and a skipped refresh reach the signed webhook and the queue", async () => {
    const user = freshUser();
    const sessions = manager({ deviceBinding: "opportunistic", clock: () => now });
    const s = await signIn(sessions, user);

    // The browser binds a key (the challenge from the sign-in's registration header).
    const offer = await sessions.deviceRegistrationHeader(user, s.sessionId);
    const device = await DbscClient.create("ES256");
    const registration = registrationRequestHeaders(
      await device.registrationProof(quoted(offer, /challenge="([^"]+)"/)),
      "chrome",
    );
    registration.set("Cookie", s.cookie);
    const bound = await sessions.registerDevice(
      new Request(`${ORIGIN}/auth/dbsc/register`, { method: "POST", headers: registration }),
    );
    expect(bound.status).toBe(200);

    // Someone with the session cookie answers a refresh challenge with another key.
    const refresh = (proof: string | null) => {
      const headers = refreshRequestHeaders(s.sessionId, proof, "chrome");
      headers.set("Cookie", s.cookie);
      return sessions.refreshDevice(new Request(`${ORIGIN}/auth/dbsc/refresh`, { method: "POST", headers }));
    };
    const asked = await refresh(null);
    const thief = await DbscClient.create("ES256");
    const challenge = quoted(asked.headers.get("Secure-Session-Challenge"), /^"([^"]+)"/);
    expect((await refresh(await thief.refreshProof(challenge))).status).toBe(403);

    // A request without the bound cookie, whose browser says it could not reach the refresh.
    const skipped = new Request(`${ORIGIN}/`, {
      headers: { Cookie: s.cookie, "Secure-Session-Skipped": `unreachable;session_identifier="${s.sessionId}"` },
    });
    expect(await sessions.resolveSession(skipped)).toBeNull();

    const events = (await allEvents(user)).filter((e) => DEVICE_TYPES.includes(e.type));
    expect(events.map((e) => [e.type, e.detail])).toEqual([
      ["session.refused", { reason: "device_refresh_skipped", skipped: "unreachable" }],
      ["session.device_refresh_failed", { reason: "bad_signature" }],
      ["session.device_bound", { alg: "ES256" }],
    ]);
    expect(await received(user)).toEqual([]);

    await runDurableObjectAlarm(stubOf(user));
    const deliveries = (await received(user)).filter((d) => events.some((e) => e.id === d.eventId));
    expect(deliveries).toHaveLength(3);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ method: "POST", url: env.SECURITY_EVENTS_WEBHOOK_URL, status: 200 });
      const verdict = await verifySecurityEvent(delivery.body, delivery.signature, env.SECURITY_EVENTS_WEBHOOK_SECRET, {
        eventId: delivery.eventId,
      });
      expect(verdict).toMatchObject({ ok: true });
      expect(events.find((e) => e.id === delivery.eventId)).toEqual(JSON.parse(delivery.body) as SecurityEvent);
      // Not vacuous: the same delivery under another secret does not verify.
      expect(await verifySecurityEvent(delivery.body, delivery.signature, "another-secret")).toEqual({
        ok: false,
        reason: "invalid_signature",
      });
    }

    const messages = await queued(user, (await allEvents(user)).length);
    for (const event of events) expect(messages.filter((m) => m.id === event.id)).toEqual([event]);
  });
});
