/**
 * `ssf.transmitters` is checked when `createAuthWorker` runs: off by default, and every mistake
 * names the option (never a request-time failure).
 */
import { describe, expect, it } from "vitest";
import { resolveAuthWorkerOptions } from "../../workers/auth/app/options";
import { PRIVATE_KEYS, publicOf } from "./keys";

const good = { issuer: "https://idp.example.test", jwks: { keys: [publicOf(PRIVATE_KEYS.ec)] }, audience: "aud" };
const resolve = (transmitters: unknown) =>
  resolveAuthWorkerOptions({ ssf: { transmitters: transmitters as never } }).ssfTransmitters;

describe("ssf.transmitters", () => {
  it("is off by default", () => {
    expect(resolveAuthWorkerOptions({}).ssfTransmitters).toEqual([]);
    expect(resolveAuthWorkerOptions({ ssf: {} }).ssfTransmitters).toEqual([]);
  });

  it("resolves a transmitter, its label the issuer's host", () => {
    const [t] = resolve([
      good,
      { ...good, issuer: "https://b.example", jwks: undefined, jwksUri: "https://b.example/jwks" },
    ]);
    expect(t?.label).toBe("idp.example.test");
  });

  for (const [why, value, message] of [
    ["an empty list", [], /ssf\.transmitters must be a non-empty list/],
    ["an issuer that is not a URL", [{ ...good, issuer: "idp" }], /ssf\.transmitters\[0\]\.issuer must be a URL/],
    [
      "plain http off loopback",
      [{ ...good, issuer: "http://idp.example" }],
      /ssf\.transmitters\[0\]\.issuer must be https/,
    ],
    ["no audience", [{ ...good, audience: "" }], /ssf\.transmitters\[0\]\.audience/],
    ["both key sources", [{ ...good, jwksUri: "https://idp.example.test/jwks" }], /exactly one of jwksUri or jwks/],
    ["neither key source", [{ ...good, jwks: undefined }], /exactly one of jwksUri or jwks/],
    ["a private key inline", [{ ...good, jwks: { keys: [PRIVATE_KEYS.ec] } }], /holds a private key/],
    [
      "a symmetric key",
      [{ ...good, jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } }],
      /must be an EC or RSA public key/,
    ],
    ["a transmitter twice", [good, good], /names a transmitter twice/],
  ] as const) {
    it(`refuses ${why}, naming the option`, () => {
      expect(() => resolve(value)).toThrow(TypeError);
      expect(() => resolve(value)).toThrow(/^createAuthWorker: /);
      expect(() => resolve(value)).toThrow(message);
    });
  }
});

describe("signal.received on the activity page", () => {
  it("reads as the issuer, the event's name and what it came to (nothing else from the SET)", async () => {
    const { describeEvent } = await import("../../workers/auth/account/activity-view");
    const event = {
      id: "e",
      seq: 1,
      userId: "u",
      type: "signal.received" as const,
      at: 0,
      sessionId: null,
      device: null,
      ip: null,
      location: null,
      actor: null,
      detail: {
        issuer: "idp.example.test",
        event: "https://schemas.openid.net/secevent/caep/event-type/session-revoked",
        outcome: "revoked",
      },
    };
    expect(describeEvent(event)).toBe(
      "idp.example.test reported a security event (session revoked): sessions were signed out",
    );
    expect(describeEvent({ ...event, detail: { ...event.detail, outcome: "expired" } })).toBe(
      "idp.example.test reported a security event (session revoked): too old, refused",
    );
    expect(describeEvent({ ...event, detail: { ...event.detail, outcome: "wrong_audience" } })).toBe(
      "idp.example.test reported a security event (session revoked): addressed to another service, refused",
    );
    expect(describeEvent({ ...event, detail: { ...event.detail, event: "<script>", outcome: "x" } })).toBe(
      "idp.example.test reported a security event (unknown): recorded",
    );
  });
});

describe("ssf: the two directions side by side", () => {
  it("transmitters alone is the receiver only; ssf alone, or naming issuer or signingKeys, is the transmitter too", () => {
    const receiverOnly = resolveAuthWorkerOptions({ ssf: { transmitters: [good] } });
    expect(receiverOnly.ssf).toBeUndefined();
    expect(receiverOnly.ssfTransmitters).toHaveLength(1);
    expect(resolveAuthWorkerOptions({ ssf: {} }).ssf).toEqual({ signingKeys: "SSF_SIGNING_KEYS", receivers: [] });
    const both = resolveAuthWorkerOptions({ ssf: { transmitters: [good], signingKeys: "SSF_KEYS" } });
    expect(both.ssf).toEqual({ signingKeys: "SSF_KEYS", receivers: [] });
    expect(both.ssfTransmitters).toHaveLength(1);
    expect(
      resolveAuthWorkerOptions({ ssf: { transmitters: [good], issuer: "https://auth.example.test" } }).ssf,
    ).toEqual({ issuer: "https://auth.example.test", signingKeys: "SSF_SIGNING_KEYS", receivers: [] });
    // Naming receivers turns the transmitter on too (stream management needs the keys).
    const streams = resolveAuthWorkerOptions({
      ssf: {
        transmitters: [good],
        receivers: { siem: { token: "SSF_TOKEN_SIEM", endpoints: ["https://siem.example"] } },
      },
    });
    expect(streams.ssf?.receivers).toEqual([
      {
        name: "siem",
        tokenVariable: "SSF_TOKEN_SIEM",
        audience: "https://siem.example",
        endpoints: ["https://siem.example"],
        maxStreams: 3,
      },
    ]);
    expect(resolveAuthWorkerOptions({}).ssf).toBeUndefined();
  });
});
