/**
 * The SSF stream management API (issue 32, transmitter) against SSF 1.0 §7-§8, driven by the
 * reference receiver (test/ssf-reference/client.ts): every endpoint comes from the discovered
 * metadata, every answer is checked by the reference's own reading of the text (status codes of
 * each operation's table, configuration and status objects). Two receivers, each with its own bearer
 * token: a token decides whose streams a call sees, the admin token opens nothing, and an endpoint
 * outside the receiver's configured origins is refused.
 */
import { createExecutionContext, SELF, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  checkManagementError,
  checkManagementSuccess,
  checkStreamConfigList,
  checkStreamStatus,
  PUSH_METHOD,
  type SsfReferenceReceiver,
} from "../ssf-reference/client";
import { createStream, deleteAllStreams, freshPath, receivers } from "./helpers";
import worker, { ISSUER, SIEM, WAREHOUSE } from "./worker";

const SESSION_REVOKED = "https://schemas.openid.net/secevent/caep/event-type/session-revoked";
const CLAIMS_CHANGE = "https://schemas.openid.net/secevent/caep/event-type/token-claims-change";
const SUPPORTED = [
  SESSION_REVOKED,
  CLAIMS_CHANGE,
  "https://schemas.openid.net/secevent/risc/event-type/account-disabled",
  "https://schemas.openid.net/secevent/risc/event-type/account-purged",
];

/** Every stream each receiver still has is deleted after each test (their number is limited). */
afterEach(async () => {
  setObjectClock(null);
  await deleteAllStreams();
});

async function discovered(receiver: SsfReferenceReceiver): Promise<SsfReferenceReceiver> {
  await receiver.discover();
  return receiver;
}

describe("discovery (SSF 1.0 §7)", () => {
  it("publishes every management endpoint, bearer tokens as the scheme, and all subjects by default", async () => {
    const siem = receivers.siem();
    const metadata = await siem.discover();
    expect(metadata).toMatchObject({
      issuer: ISSUER,
      configuration_endpoint: `${ISSUER}/ssf/stream`,
      status_endpoint: `${ISSUER}/ssf/status`,
      add_subject_endpoint: `${ISSUER}/ssf/subjects/add`,
      remove_subject_endpoint: `${ISSUER}/ssf/subjects/remove`,
      verification_endpoint: `${ISSUER}/ssf/verify`,
      authorization_schemes: [{ spec_urn: "urn:ietf:rfc:6750" }],
      default_subjects: "ALL",
      delivery_methods_supported: [PUSH_METHOD],
    });
    const jwks = await siem.jwks();
    // Both configured keys are published (rotation without a gap); the first signs.
    expect(jwks.keys.map((k) => k.kid)).toEqual(["ssf-test-2026-a", "ssf-test-2026-b"]);
  });
});

describe("authentication (SSF 1.0 §8: a receiver's own credentials tie it to its streams)", () => {
  it("refuses a missing, wrong or admin token with 401 and a Bearer challenge", async () => {
    const siem = await discovered(receivers.siem());
    for (const token of [null, "not-a-token", env.ADMIN_API_TOKEN, `${env.SSF_TOKEN_SIEM}x`]) {
      const res = await siem.readStream(undefined, { token });
      checkManagementError("readStream", res, 401);
      expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="ssf"');
      expect(res.text).not.toContain(env.SSF_TOKEN_SIEM);
    }
    const basic = await siem.readStream(undefined, { authorization: `Basic ${btoa(`siem:${env.SSF_TOKEN_SIEM}`)}` });
    checkManagementError("readStream", basic, 401);
  });

  it("shows a receiver its own streams only; another's id is answered like no stream (404)", async () => {
    const siem = await discovered(receivers.siem());
    const warehouse = await discovered(receivers.warehouse());
    const ours = await createStream(siem, SIEM, freshPath());
    const theirs = await createStream(warehouse, WAREHOUSE, freshPath());
    checkStreamConfigList((await siem.readStream()).body, { issuer: ISSUER, streamIds: [ours] });
    checkStreamConfigList((await warehouse.readStream()).body, { issuer: ISSUER, streamIds: [theirs] });
    checkManagementError("readStream", await siem.readStream(theirs), 404);
    checkManagementError("readStatus", await siem.readStatus(theirs), 404);
    checkManagementError("deleteStream", await siem.deleteStream(theirs), 404);
    checkManagementError("updateStream", await siem.updateStream({ stream_id: theirs, description: "x" }), 404);
    checkManagementError("verify", await siem.verify({ stream_id: theirs }), 404);
    checkManagementError(
      "addSubject",
      await siem.addSubject({ stream_id: theirs, subject: { format: "opaque", id: "x" } }),
      404,
    );
    // Still there for its owner, unchanged.
    const still = await warehouse.readStream(theirs);
    checkManagementSuccess("readStream", still);
    expect((still.body as { description?: string }).description).toBeUndefined();
  });
});

describe("creating a stream (SSF 1.0 §8.1.1.1)", () => {
  it("answers 201 with the configuration: our iss, the receiver's configured aud, events delivered", async () => {
    const siem = await discovered(receivers.siem());
    const endpoint = `${SIEM}${freshPath()}`;
    const res = await siem.createStream({
      delivery: { method: PUSH_METHOD, endpoint_url: endpoint, authorization_header: "Bearer receiver-secret-1" },
      events_requested: [SESSION_REVOKED, "urn:example:unknown-event"],
      description: "SIEM, revocations only",
    });
    checkManagementSuccess("createStream", res);
    siem.checkStreamConfig(res.body, {
      audience: SIEM,
      delivery: { method: PUSH_METHOD, endpoint_url: endpoint },
      eventsRequested: [SESSION_REVOKED, "urn:example:unknown-event"],
      description: "SIEM, revocations only",
      eventsDelivered: [SESSION_REVOKED],
    });
    const config = res.body as Record<string, unknown>;
    expect(config.events_supported).toEqual(SUPPORTED);
    expect(config.min_verification_interval).toBe(30);
    // The receiver's own secret for its endpoint is never shown back.
    expect(res.text).not.toContain("receiver-secret-1");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("Location")).toBe(`/ssf/stream?stream_id=${config.stream_id}`);
    // Read back, alone and in the list.
    const read = await siem.readStream(config.stream_id as string);
    checkManagementSuccess("readStream", read);
    expect(read.body).toEqual(res.body);
  });

  it("gives a stream that names no events every event we send; the configured audience goes into aud", async () => {
    const warehouse = await discovered(receivers.warehouse());
    const id = await createStream(warehouse, WAREHOUSE, freshPath());
    const read = await warehouse.readStream(id);
    warehouse.checkStreamConfig(read.body, { audience: "warehouse-prod", eventsDelivered: SUPPORTED });
  });

  it("refuses what it cannot do with the status the specification lists", async () => {
    const siem = await discovered(receivers.siem());
    // No delivery means poll (§8.1.1.1), which is not offered: 400.
    checkManagementError("createStream", await siem.createStream({ events_requested: [SESSION_REVOKED] }), 400);
    checkManagementError("createStream", await siem.createStream({ delivery: { method: "urn:ietf:rfc:8936" } }), 400);
    checkManagementError("createStream", await siem.createStream({}, { rawBody: "{not json" }), 400);
    checkManagementError("createStream", await siem.createStream({}, { rawBody: "[1,2]" }), 400);
    checkManagementError(
      "createStream",
      await siem.createStream({
        delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/x` },
        events_requested: "all",
      } as never),
      400,
    );
    const header = await siem.createStream({
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/x`, authorization_header: "Bearer a\r\nX-Evil: 1" },
    });
    checkManagementError("createStream", header, 400);
    // A stream id is the transmitter's to choose.
    checkManagementError(
      "createStream",
      await siem.createStream({
        stream_id: "mine",
        delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/x` },
      } as never),
      400,
    );
    expect((await siem.readStream()).body).toEqual([]);
  });

  it("refuses a push endpoint outside the receiver's configured origins (403): no forwarding anywhere", async () => {
    const siem = await discovered(receivers.siem());
    for (const url of [
      `${WAREHOUSE}/events`,
      "https://siem.example.com.evil.test/events",
      "http://siem.example.com/events",
      "https://user:pass@siem.example.com/events",
      "https://siem.example.com:8443/events",
      "http://127.0.0.1/events",
      "https://169.254.169.254/latest/meta-data",
      `${SIEM}/events#fragment`,
    ]) {
      const res = await siem.createStream({ delivery: { method: PUSH_METHOD, endpoint_url: url } });
      checkManagementError("createStream", res, 403);
    }
    expect((await siem.readStream()).body).toEqual([]);
  });

  it("answers 409 past the receiver's number of streams", async () => {
    const warehouse = await discovered(receivers.warehouse());
    await createStream(warehouse, WAREHOUSE, freshPath());
    await createStream(warehouse, WAREHOUSE, freshPath());
    const third = await warehouse.createStream({ delivery: { method: PUSH_METHOD, endpoint_url: `${WAREHOUSE}/x` } });
    checkManagementError("createStream", third, 409);
    // Another receiver's limit is its own.
    await createStream(await discovered(receivers.siem()), SIEM, freshPath());
  });
});

describe("updating, replacing and deleting (SSF 1.0 §8.1.1.3-§8.1.1.5)", () => {
  it("PATCH changes what it names and keeps the rest; PUT deletes what it leaves out", async () => {
    const siem = await discovered(receivers.siem());
    const endpoint = `${SIEM}${freshPath()}`;
    const created = await siem.createStream({
      delivery: { method: PUSH_METHOD, endpoint_url: endpoint },
      events_requested: [SESSION_REVOKED],
      description: "first",
    });
    const id = (created.body as { stream_id: string }).stream_id;
    const patched = await siem.updateStream({ stream_id: id, events_requested: [SESSION_REVOKED, CLAIMS_CHANGE] });
    checkManagementSuccess("updateStream", patched);
    siem.checkStreamConfig(patched.body, {
      streamId: id,
      delivery: { method: PUSH_METHOD, endpoint_url: endpoint },
      eventsRequested: [SESSION_REVOKED, CLAIMS_CHANGE],
      eventsDelivered: [SESSION_REVOKED, CLAIMS_CHANGE],
      description: "first",
    });
    const other = `${SIEM}${freshPath()}`;
    const replaced = await siem.replaceStream({
      stream_id: id,
      delivery: { method: PUSH_METHOD, endpoint_url: other },
      events_requested: [CLAIMS_CHANGE],
    });
    checkManagementSuccess("replaceStream", replaced);
    siem.checkStreamConfig(replaced.body, {
      streamId: id,
      delivery: { method: PUSH_METHOD, endpoint_url: other },
      eventsRequested: [CLAIMS_CHANGE],
      eventsDelivered: [CLAIMS_CHANGE],
      description: null,
    });
  });

  it("refuses a transmitter-supplied property that differs, a PUT without delivery, and an unknown stream", async () => {
    const siem = await discovered(receivers.siem());
    const id = await createStream(siem, SIEM, freshPath());
    const current = (await siem.readStream(id)).body as Record<string, unknown>;
    // Echoing ours unchanged is fine (§8.1.1.3)…
    checkManagementSuccess("updateStream", await siem.updateStream({ ...current, description: "same" } as never));
    // …changing any is not.
    for (const change of [
      { iss: "https://elsewhere.example" },
      { aud: "someone-else" },
      { events_supported: [SESSION_REVOKED] },
      { events_delivered: [SESSION_REVOKED] },
      { min_verification_interval: 1 },
    ]) {
      checkManagementError("updateStream", await siem.updateStream({ stream_id: id, ...change } as never), 400);
    }
    checkManagementError("replaceStream", await siem.replaceStream({ stream_id: id, events_requested: [] }), 400);
    checkManagementError("updateStream", await siem.updateStream({ description: "no id" } as never), 400);
    checkManagementError("updateStream", await siem.updateStream({ stream_id: "nope", description: "x" }), 404);
    checkManagementError(
      "updateStream",
      await siem.updateStream({ stream_id: id, delivery: { method: PUSH_METHOD, endpoint_url: `${WAREHOUSE}/x` } }),
      403,
    );
    // Nothing changed.
    expect((await siem.readStream(id)).body).toMatchObject({ stream_id: id, description: "same" });
  });

  it("DELETE answers 204, then the stream is gone (404)", async () => {
    const siem = await discovered(receivers.siem());
    const id = await createStream(siem, SIEM, freshPath());
    checkManagementSuccess("deleteStream", await siem.deleteStream(id));
    checkManagementError("readStream", await siem.readStream(id), 404);
    checkManagementError("deleteStream", await siem.deleteStream(id), 404);
  });
});

describe("status (SSF 1.0 §8.1.2)", () => {
  it("reads enabled, takes paused with a reason, then disabled, then enabled again", async () => {
    const siem = await discovered(receivers.siem());
    const id = await createStream(siem, SIEM, freshPath());
    const read = await siem.readStatus(id);
    checkManagementSuccess("readStatus", read);
    checkStreamStatus(read.body, { streamId: id, status: "enabled" });
    for (const status of ["paused", "disabled", "enabled"] as const) {
      const res = await siem.updateStatus({ stream_id: id, status, reason: `now ${status}` });
      checkManagementSuccess("updateStatus", res);
      checkStreamStatus(res.body, { streamId: id, status, reason: `now ${status}` });
      checkStreamStatus((await siem.readStatus(id)).body, { streamId: id, status });
    }
    checkManagementError("updateStatus", await siem.updateStatus({ stream_id: id, status: "off" } as never), 400);
    checkManagementError("readStatus", await siem.readStatus("unknown-stream"), 404);
    // §8.1.2.1: stream_id is REQUIRED.
    const noId = await siem.send("status_endpoint", "GET");
    expect(noId.status).toBe(400);
  });
});

describe("subjects (SSF 1.0 §8.1.3)", () => {
  it("adds (200, empty) and removes (204) any well-formed subject, known here or not", async () => {
    const siem = await discovered(receivers.siem());
    const id = await createStream(siem, SIEM, freshPath());
    const subject = { format: "email", email: "nobody-we-know@example.com" };
    checkManagementSuccess("removeSubject", await siem.removeSubject({ stream_id: id, subject }));
    checkManagementSuccess("addSubject", await siem.addSubject({ stream_id: id, subject, verified: true }));
    checkManagementError("addSubject", await siem.addSubject({ stream_id: id, subject: "jdoe" } as never), 400);
    checkManagementError("removeSubject", await siem.removeSubject({ stream_id: id, subject: {} } as never), 400);
    checkManagementError(
      "addSubject",
      await siem.addSubject({ stream_id: id, subject: { format: "x".repeat(65) } }),
      400,
    );
  });
});

describe("verification (SSF 1.0 §8.1.4.2)", () => {
  it("answers 204, then 429 with Retry-After inside min_verification_interval, 204 again after it", async () => {
    let now = Date.now() + 7 * 24 * 3600 * 1000;
    setObjectClock(() => now);
    const siem = await discovered(receivers.siem());
    const id = await createStream(siem, SIEM, freshPath());
    checkManagementSuccess("verify", await siem.verify({ stream_id: id, state: "s1" }));
    now += 10_000;
    const early = await siem.verify({ stream_id: id, state: "s2" });
    checkManagementError("verify", early, 429);
    expect(early.headers.get("Retry-After")).toBe("20");
    now += 20_000;
    checkManagementSuccess("verify", await siem.verify({ stream_id: id }));
    checkManagementError("verify", await siem.verify({ stream_id: id, state: 42 } as never), 400);
    checkManagementError("verify", await siem.verify({} as never), 400);
  });
});

describe("the API's edges", () => {
  it("answers 405 with Allow for a method the endpoint does not take, after authentication", async () => {
    const siem = await discovered(receivers.siem());
    const res = await siem.send("verification_endpoint", "GET");
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST");
    const anonymous = await siem.send("verification_endpoint", "GET", { token: null });
    expect(anonymous.status).toBe(401);
  });

  it("refuses a body over 16 KiB unread, and never answers with internals", async () => {
    const siem = await discovered(receivers.siem());
    const res = await siem.createStream({}, { rawBody: JSON.stringify({ description: "x".repeat(20_000) }) });
    expect(res.status).toBe(400);
    expect(res.text).not.toMatch(/\n\s+at |\.ts\b|Error:/);
  });
});

describe("the operator's view (GET /admin/ssf/streams)", () => {
  it("lists every receiver's streams with status and delivery log, behind the admin token, without secrets", async () => {
    const siem = await discovered(receivers.siem());
    const id = await createStream(siem, SIEM, freshPath());
    await siem.updateStream({
      stream_id: id,
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/in`, authorization_header: "Bearer inbox-secret-9" },
    });
    // A removal is seen by the operator (SSF 1.0 §9.3: removal can hide a person's events).
    await siem.removeSubject({ stream_id: id, subject: { format: "email", email: "someone@example.com" } });
    const anonymous = await SELF.fetch(`${ISSUER}/admin/ssf/streams`);
    expect(anonymous.status).toBe(401);
    // A receiver's token is not an admin token.
    const asReceiver = await SELF.fetch(`${ISSUER}/admin/ssf/streams`, {
      headers: { Authorization: `Bearer ${env.SSF_TOKEN_SIEM}` },
    });
    expect(asReceiver.status).toBe(403);
    const res = await SELF.fetch(`${ISSUER}/admin/ssf/streams`, {
      headers: { Authorization: `Bearer ${env.ADMIN_API_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain("inbox-secret-9");
    const { streams } = JSON.parse(text) as {
      streams: { receiver: string; status: { status: string }; pending: number }[];
    };
    expect(streams).toEqual([
      expect.objectContaining({
        receiver: "siem",
        status: { stream_id: id, status: "enabled" },
        pending: 0,
        recent: [],
      }),
    ]);
  });
});

describe("the start-up check (weak or missing secrets fail closed, naming the variable)", () => {
  async function withEnv(overrides: Record<string, unknown>): Promise<{ status: number; logged: string }> {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`${ISSUER}/ssf/stream`, { headers: { Authorization: `Bearer ${env.SSF_TOKEN_SIEM}` } }),
        { ...env, ...overrides } as Cloudflare.Env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      const text = await res.text();
      expect(text).not.toContain("SSF_TOKEN");
      return { status: res.status, logged: errors.mock.calls.flat().join("\n") };
    } finally {
      errors.mockRestore();
    }
  }

  it("a receiver token that is missing, short or a placeholder: 503, the log names it", async () => {
    for (const value of [undefined, "short-token", "changeme-changeme-changeme-changeme-changeme"]) {
      const { status, logged } = await withEnv({ SSF_TOKEN_WAREHOUSE: value });
      expect(status).toBe(503);
      expect(logged).toContain("SSF_TOKEN_WAREHOUSE");
    }
  });

  it("without the SsfStreams binding: 503, the log names SSF_STREAMS", async () => {
    const { status, logged } = await withEnv({ SSF_STREAMS: undefined });
    expect(status).toBe(503);
    expect(logged).toContain("SSF_STREAMS");
  });
});
