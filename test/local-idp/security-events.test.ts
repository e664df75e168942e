// The security-event receiver (`/__local/security-events`): deliveries signed the way the auth
// worker signs them (client-sdk/security-events) are kept, deduplicated by Gatehouse-Event-Id and
// listed newest first; anything unsigned, mis-signed, stale or oversized is refused with a JSON code;
// the directory page lists them escaped. Real HTTP, an injected clock.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record.ts";
import {
  SECURITY_EVENT_ID_HEADER,
  SECURITY_EVENT_SIGNATURE_HEADER,
  SECURITY_EVENT_TOLERANCE_MS,
  signSecurityEvent,
} from "../../client-sdk/security-events/index.ts";
import { ADA_ID, INBOX_SIZE, type LocalIdp } from "../../scripts/local-idp/index.ts";
import { SecurityEventInbox } from "../../scripts/local-idp/security-events.ts";
import { resetIdp, startTestIdp } from "./helpers.ts";

const SECRET = "security-events-test-secret-0123456789abcdef";
const START = Date.UTC(2026, 4, 1, 12, 0, 0);

let clock = START;
let idp: LocalIdp;
let off: LocalIdp;
beforeAll(async () => {
  [idp, off] = await Promise.all([
    startTestIdp({ securityEvents: { secret: SECRET }, now: () => clock }),
    startTestIdp({ now: () => clock }),
  ]);
});
afterAll(() => Promise.all([idp.close(), off.close()]));
beforeEach(async () => {
  clock = START;
  await resetIdp(idp);
});

function event(overrides: Partial<SecurityEvent> = {}): SecurityEvent {
  return {
    id: "evt_1",
    seq: 1,
    userId: ADA_ID,
    type: "session.signed_in",
    at: START - 1_000,
    sessionId: "sess_1",
    device: "Firefox 140 on macOS",
    ip: "203.0.113.7",
    location: { country: "PT", region: "Lisbon", city: "Lisbon", colo: "LIS" },
    actor: null,
    detail: { organizationId: "org_1" },
    ...overrides,
  };
}

interface DeliveryOptions {
  secret?: string;
  signedAt?: number;
  body?: string;
  /** Header overrides; null drops the header. */
  signature?: string | null;
  eventId?: string | null;
  target?: LocalIdp;
}

/** POSTs `e` as the worker's outbox does: JSON body, signature and event id headers. */
async function deliver(e: SecurityEvent, options: DeliveryOptions = {}) {
  const body = JSON.stringify(e);
  const signature =
    options.signature === undefined
      ? await signSecurityEvent(body, options.secret ?? SECRET, options.signedAt ?? clock)
      : options.signature;
  const eventId = options.eventId === undefined ? e.id : options.eventId;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== null) headers[SECURITY_EVENT_SIGNATURE_HEADER] = signature;
  if (eventId !== null) headers[SECURITY_EVENT_ID_HEADER] = eventId;
  const res = await fetch(`${(options.target ?? idp).url}/__local/security-events`, {
    method: "POST",
    headers,
    body: options.body ?? body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function deliveries(): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${idp.url}/__local/security-events`);
  return ((await res.json()) as { deliveries: Array<Record<string, unknown>> }).deliveries;
}

describe("POST /__local/security-events", () => {
  it("accepts a delivery signed with the secret and lists it", async () => {
    expect(await deliver(event())).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(await deliveries()).toEqual([
      {
        id: "evt_1",
        received_at: new Date(START).toISOString(),
        type: "session.signed_in",
        user_id: ADA_ID,
        at: new Date(START - 1_000).toISOString(),
        session_id: "sess_1",
        device: "Firefox 140 on macOS",
        ip: "203.0.113.7",
        location: { country: "PT", region: "Lisbon", city: "Lisbon", colo: "LIS" },
        actor: null,
        detail: { organizationId: "org_1" },
        duplicates: 0,
      },
    ]);
  });

  it.each<[string, () => Promise<{ status: number; body: Record<string, unknown> }>, number, string]>([
    ["another secret", () => deliver(event(), { secret: `${SECRET}-other` }), 401, "invalid_signature"],
    [
      "a tampered body",
      async () =>
        deliver(event(), {
          body: JSON.stringify(event({ userId: "user_someone_else" })),
          signature: await signSecurityEvent(JSON.stringify(event()), SECRET, clock),
        }),
      401,
      "invalid_signature",
    ],
    [
      "a stale timestamp",
      () => deliver(event(), { signedAt: START - SECURITY_EVENT_TOLERANCE_MS - 1 }),
      401,
      "stale_timestamp",
    ],
    ["no signature header", () => deliver(event(), { signature: null }), 401, "missing_signature"],
    ["a malformed signature", () => deliver(event(), { signature: "v1=abc" }), 400, "malformed_signature"],
    ["no event id header", () => deliver(event(), { eventId: null }), 400, "missing_event_id"],
    ["an event id that is not the body's", () => deliver(event(), { eventId: "evt_2" }), 400, "event_id_mismatch"],
  ])("refuses %s (%i %s) and keeps nothing", async (_, send, status, code) => {
    const res = await send();
    expect(res).toEqual({ status, body: { code, message: expect.any(String) } });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(await deliveries()).toEqual([]);
  });

  it("refuses a delivery whose timestamp the clock has left behind", async () => {
    const signature = await signSecurityEvent(JSON.stringify(event()), SECRET, START);
    clock = START + SECURITY_EVENT_TOLERANCE_MS + 1;
    expect(await deliver(event(), { signature })).toMatchObject({ status: 401, body: { code: "stale_timestamp" } });
  });

  it("refuses a signed body that is not a security event", async () => {
    const body = JSON.stringify({ id: "evt_1", hello: "world" });
    const signature = await signSecurityEvent(body, SECRET, clock);
    expect(await deliver(event(), { body, signature })).toMatchObject({
      status: 400,
      body: { code: "invalid_event" },
    });
  });

  it("refuses a body over 256 KiB with 413", async () => {
    const big = event({ device: "x".repeat(256 * 1024) });
    expect(await deliver(big)).toMatchObject({ status: 413, body: { code: "payload_too_large" } });
  });

  it("answers 503 not_configured when the provider has no secret", async () => {
    const res = await deliver(event(), { target: off });
    expect(res).toEqual({ status: 503, body: { code: "not_configured", message: expect.any(String) } });
  });

  it("keeps a retried delivery once (same Gatehouse-Event-Id) and counts the repeat", async () => {
    expect((await deliver(event())).body).toEqual({ received: true, duplicate: false });
    clock += 30_000; // the outbox retries later, with a fresh signature
    expect(await deliver(event())).toEqual({ status: 200, body: { received: true, duplicate: true } });
    const list = await deliveries();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: "evt_1", duplicates: 1, received_at: new Date(START).toISOString() });
  });

  it("lists newest first; DELETE and POST /__local/reset empty the list", async () => {
    for (const [i, type] of (["session.signed_in", "session.new_device", "session.revoked"] as const).entries()) {
      clock = START + i * 1_000;
      await deliver(event({ id: `evt_${i}`, seq: i, type }));
    }
    expect((await deliveries()).map((d) => [d.id, d.type])).toEqual([
      ["evt_2", "session.revoked"],
      ["evt_1", "session.new_device"],
      ["evt_0", "session.signed_in"],
    ]);
    expect((await fetch(`${idp.url}/__local/security-events`, { method: "DELETE" })).status).toBe(200);
    expect(await deliveries()).toEqual([]);
    await deliver(event());
    await resetIdp(idp);
    expect(await deliveries()).toEqual([]);
  });
});

describe("the directory page", () => {
  it("lists delivered events with the user's name, device, place and time, escaped", async () => {
    await deliver(
      event({
        device: "<script>alert(1)</script> on Linux",
        actor: { kind: "admin", label: "ops" },
        type: "session.revoked",
      }),
    );
    const res = await fetch(`${idp.url}/`);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain("Security events (from the auth worker)");
    expect(page).toContain(`${idp.url}/__local/security-events`);
    expect(page).toContain(
      `<tr><td>session.revoked</td><td>Ada Lovelace</td><td>&lt;script&gt;alert(1)&lt;/script&gt; on Linux</td><td>Lisbon, Lisbon, PT (LIS)</td><td>${new Date(START - 1_000).toISOString()}</td></tr>`,
    );
    expect(page).not.toContain("<script");
  });

  it("says the receiver is off without a secret", async () => {
    const page = await (await fetch(`${off.url}/`)).text();
    expect(page).toContain("Security events (from the auth worker)");
    expect(page).toContain("The receiver is off");
    expect(page).toContain("No security events yet.");
  });
});

describe("SecurityEventInbox", () => {
  it(`keeps the last ${INBOX_SIZE} deliveries`, async () => {
    const inbox = new SecurityEventInbox({ secret: SECRET }, () => START);
    for (let i = 0; i <= INBOX_SIZE; i++) {
      const body = JSON.stringify(event({ id: `evt_${i}` }));
      expect(await inbox.receive(body, await signSecurityEvent(body, SECRET, START), `evt_${i}`)).toEqual({
        ok: true,
        duplicate: false,
      });
    }
    const kept = inbox.list();
    expect(kept).toHaveLength(INBOX_SIZE);
    expect(kept[0]?.event.id).toBe(`evt_${INBOX_SIZE}`);
    expect(kept.at(-1)?.event.id).toBe("evt_1");
  });

  it("refuses an empty secret at start", () => {
    expect(() => new SecurityEventInbox({ secret: "" })).toThrow(TypeError);
  });
});
