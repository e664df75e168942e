/**
 * Device binding made visible (issue 30): `/account/sessions` marks a session whose browser bound a
 * device key, the timeline says so (`session.device_bound`), and a bound session's cookie presented
 * without its proof reads as a likely copied cookie. The key is bound through the object's own RPC
 * (`bindingChallenge`, `bindDevice`: storage only; proofs are the routes' tests, test/sessions).
 */
import type { SecurityEvent } from "gatehouse-workers/client";
import { describe, expect, it } from "vitest";
import { describeEvent, renderEvent } from "../../workers/auth/account/activity-view";
import { call, freshUser, openPage, type Signed, signIn, stubOf } from "./helpers";

const FIREFOX_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
const JWK = { kty: "EC", crv: "P-256", x: "x".repeat(43), y: "y".repeat(43) } as const;

async function bind(session: Signed): Promise<void> {
  const stub = stubOf(session.userId);
  const issued = await stub.bindingChallenge(session.sessionId, "registration");
  expect(issued).not.toBeNull();
  const outcome = await stub.bindDevice(session.sessionId, issued!.challenge, {
    jwk: JWK,
    alg: "ES256",
    thumbprint: "thumbprint-of-the-test-key",
  });
  expect(outcome).toBe("bound");
}

const event = (over: Partial<SecurityEvent>): SecurityEvent => ({
  id: "ev_1",
  seq: 1,
  userId: "user_1",
  type: "session.signed_in",
  at: Date.UTC(2026, 10, 22, 14, 5),
  sessionId: "sid_1",
  device: null,
  ip: null,
  location: null,
  actor: null,
  detail: {},
  ...over,
});

describe("device-bound sessions on /account/sessions", () => {
  it("marks a bound session in words (HTML and JSON); an unbound one carries no marker", async () => {
    const user = freshUser();
    const phone = await signIn(user, { userAgent: SAFARI_IPHONE });
    const laptop = await signIn(user, { userAgent: FIREFOX_MAC });
    await bind(phone);

    const page = await openPage(laptop);
    const item = (id: string) => new RegExp(`<li data-session-id="${id}"[^>]*>.*?</li>`).exec(page.html)?.[0] ?? "";
    expect(item(phone.sessionId)).toContain('data-bound="true"');
    expect(item(phone.sessionId)).toContain("(device-bound)");
    expect(item(laptop.sessionId)).not.toContain("data-bound");
    expect(item(laptop.sessionId)).not.toContain("device-bound");

    const res = await call("/account/sessions", { headers: { Cookie: laptop.cookie, Accept: "application/json" } });
    const body = (await res.json()) as { sessions: { id: string; bound: boolean }[] };
    expect(Object.fromEntries(body.sessions.map((s) => [s.id, s.bound]))).toEqual({
      [phone.sessionId]: true,
      [laptop.sessionId]: false,
    });
  });

  it("the timeline records the binding once, with the session's device", async () => {
    const user = freshUser();
    const phone = await signIn(user, { userAgent: SAFARI_IPHONE });
    await bind(phone);
    // A second registration does not bind again, and records nothing.
    const stub = stubOf(user);
    const again = await stub.bindingChallenge(phone.sessionId, "registration");
    expect(await stub.bindDevice(phone.sessionId, again!.challenge, { jwk: JWK, alg: "ES256", thumbprint: "t" })).toBe(
      "already_bound",
    );

    const { events } = await stub.timeline({});
    const bound = events.filter((e) => e.type === "session.device_bound");
    expect(bound).toHaveLength(1);
    expect(bound[0]).toMatchObject({
      sessionId: phone.sessionId,
      device: "Safari 18 on iOS",
      detail: { alg: "ES256" },
    });

    const page = await openPage(phone, "/account/activity");
    expect(page.html).toContain('data-type="session.device_bound"');
    expect(page.html).toContain("A session was bound to its device&#39;s key");
  });
});

describe("timeline wording of device binding", () => {
  it("a bound session used without its proof reads as a likely copied cookie, highlighted; a revoked one as before", () => {
    const copied = event({ type: "session.refused", detail: { reason: "device_proof_missing" } });
    expect(describeEvent(copied)).toBe(
      "A device-bound session was used without its device's key and refused (a copied cookie?)",
    );
    expect(renderEvent(copied, "csrf")).toContain('<strong class="alert">');
    const revoked = event({ type: "session.refused", detail: { reason: "revoked" } });
    expect(describeEvent(revoked)).toBe("A signed-out session was used again and refused");
    expect(renderEvent(revoked, "csrf")).not.toContain('class="alert"');
  });

  it("a skipped refresh gives the request's reason, highlighted: anyone holding the cookie can claim it", () => {
    const skipped = event({
      type: "session.refused",
      detail: { reason: "device_refresh_skipped", skipped: "unreachable" },
    });
    expect(describeEvent(skipped)).toBe(
      "A device-bound session was used without a fresh device proof and refused; the request said its browser could not refresh it (unreachable). If this place is not yours, it may be a copied cookie",
    );
    expect(renderEvent(skipped, "csrf")).toContain('<strong class="alert">');
    const words = (skipped: string) =>
      describeEvent(event({ type: "session.refused", detail: { reason: "device_refresh_skipped", skipped } }));
    expect(words("server_error")).toContain("(server error)");
    expect(words("quota_exceeded")).toContain("(too many refreshes)");
    expect(words("<script>")).toContain("(reason not given)");
  });

  it("a refused refresh proof names why; one signed by another key is highlighted", () => {
    const forged = event({ type: "session.device_refresh_failed", detail: { reason: "bad_signature" } });
    expect(describeEvent(forged)).toBe("A device proof for a session was refused (not signed by the device's key)");
    expect(renderEvent(forged, "csrf")).toContain('<strong class="alert">');
    const replayed = event({ type: "session.device_refresh_failed", detail: { reason: "unknown_challenge" } });
    expect(describeEvent(replayed)).toBe("A device proof for a session was refused (a used or expired challenge)");
    expect(renderEvent(replayed, "csrf")).not.toContain('class="alert"');
    const garbled = event({ type: "session.device_refresh_failed", detail: { reason: "malformed" } });
    expect(describeEvent(garbled)).toBe("A device proof for a session was refused (unreadable proof)");
  });
});
