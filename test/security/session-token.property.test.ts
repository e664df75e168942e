/**
 * Issue 14 proof: property tests of the signed-session codec (`<token>.<HMAC-SHA256("session|" +
 * token)>`, both base64url). Any tampering of a signed value is refused: a changed, inserted or
 * deleted character, a signature taken from another token, a value signed with another secret.
 * The untampered value verifies, also after a rotation (SESSION_SECRET_PREVIOUS). The codec is
 * checked on its own and through the deployed auth worker (`GET /api/me` with a real session).
 */
import fc from "fast-check";
import { parseCookie } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { HmacSigner } from "../../workers/auth/crypto";
import { issueSessionToken, verifySessionToken } from "../../workers/auth/session/token";
import { cookieHeader, cookiesFrom, live, providerCode, send, type WorkerEnv } from "./helpers/world";

const SECRET = "property-secret-0123456789-abcdefghijklmnop";
const OTHER = "property-other-secret-0123456789-abcdefghij";
const signer = new HmacSigner(SECRET);
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A deterministic random source from a seed, so fast-check can shrink and replay. */
const seeded = (seed: number) => (bytes: Uint8Array<ArrayBuffer>) => {
  let x = seed | 0 || 1;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
};

type Edit =
  | { kind: "replace"; at: number; ch: string }
  | { kind: "insert"; at: number; text: string }
  | { kind: "delete"; at: number; count: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constant("replace" as const),
    at: fc.nat(86),
    ch: fc.oneof(fc.constantFrom(...B64URL, ".", "=", "+", "/"), fc.string({ minLength: 1, maxLength: 1 })),
  }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(87), text: fc.string({ minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(86), count: fc.integer({ min: 1, max: 3 }) }),
);

function apply(value: string, e: Edit): string {
  if (e.kind === "replace") return value.slice(0, e.at) + e.ch + value.slice(e.at + 1);
  if (e.kind === "insert") return value.slice(0, e.at) + e.text + value.slice(e.at);
  return value.slice(0, e.at) + value.slice(e.at + e.count);
}

describe("signed session codec (property)", () => {
  it("any edit of a signed value is refused; the value itself verifies to its id", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), edit, async (seed, e) => {
        const { cookieValue, sessionId } = await issueSessionToken(signer, seeded(seed));
        expect(await verifySessionToken(signer, cookieValue)).toBe(sessionId);
        const tampered = apply(cookieValue, e);
        fc.pre(tampered !== cookieValue);
        expect(await verifySessionToken(signer, tampered)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it("only the issued spelling verifies: no other character at the token's or signature's last place", async () => {
    // The 43rd base64url character carries 2 unused bits, so 4 spellings decode to the same bytes;
    // a decoder that ignores them would accept 3 forged spellings of every value (random edits
    // above hit this rarely, so every alternative is tried here).
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.constantFrom(42, 86), async (seed, at) => {
        const { cookieValue } = await issueSessionToken(signer, seeded(seed));
        for (const ch of B64URL) {
          if (ch === cookieValue[at]) continue;
          const respelled = cookieValue.slice(0, at) + ch + cookieValue.slice(at + 1);
          expect(await verifySessionToken(signer, respelled)).toBeNull();
        }
      }),
      { numRuns: 40 },
    );
  });

  it("a signature from another token, or from another secret, is refused", async () => {
    const other = new HmacSigner(OTHER);
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer(), async (a, b) => {
        fc.pre(a !== b);
        const first = await issueSessionToken(signer, seeded(a));
        const second = await issueSessionToken(signer, seeded(b));
        const [token] = first.cookieValue.split(".");
        const [otherToken, signature] = second.cookieValue.split(".");
        fc.pre(token !== otherToken); // two seeds may give one token: then it is the same token

        expect(await verifySessionToken(signer, `${token}.${signature}`)).toBeNull();
        const foreign = await issueSessionToken(other, seeded(a));
        expect(await verifySessionToken(signer, foreign.cookieValue)).toBeNull();
      }),
      { numRuns: 200 },
    );
  });

  it("after a rotation, values of the previous secret still verify and new ones are signed by the new", async () => {
    const rotated = new HmacSigner([OTHER, SECRET]);
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const old = await issueSessionToken(signer, seeded(seed));
        expect(await verifySessionToken(rotated, old.cookieValue)).toBe(old.sessionId);
        const fresh = await issueSessionToken(rotated, seeded(seed));
        expect(await verifySessionToken(new HmacSigner(OTHER), fresh.cookieValue)).toBe(fresh.sessionId);
        expect(await verifySessionToken(signer, fresh.cookieValue)).toBeNull();
      }),
      { numRuns: 100 },
    );
  });

  it("never throws on arbitrary input", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 120 }), async (value) => {
        expect(await verifySessionToken(signer, value)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });
});

/** scripts/local-idp/demo-data.ts: Alan belongs to Acme. */
const ALAN = "user_01ALANTURING00000000000000";
const SESSION_COOKIE = "__Host-gh_session";
const ROTATED = "Rt7mQ2xV9bK4nW8pZ3cH6jF1sL5dG0yA";

/** Signs Alan in through the worker's real routes under `e`; the jar holds the session cookie. */
async function signIn(e: WorkerEnv): Promise<Record<string, string>> {
  const start = await send("/auth/login", {}, e);
  expect(start.status).toBe(302);
  const jar = cookiesFrom(start);
  const authorize = new URL(start.headers.get("Location")!);
  const issued = await providerCode(authorize, ALAN);
  expect(issued.status).toBe(201);
  const { code } = (await issued.json()) as { code: string };
  const done = await send(
    `/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`,
    { headers: { Cookie: cookieHeader(jar) } },
    e,
  );
  expect(done.status).toBe(302);
  cookiesFrom(done, jar);
  expect(jar[SESSION_COOKIE]).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/);
  return jar;
}

async function meStatus(cookie: string, e: WorkerEnv = live): Promise<number> {
  const res = await send("/api/me", { headers: { Cookie: cookie, Accept: "application/json" } }, e);
  await res.body?.cancel();
  return res.status;
}

/** Other cookies a browser sends beside ours (names never the session cookie's). */
const neighbours = fc.array(
  fc.tuple(fc.constantFrom("theme", "gh_csrf", "_ga", "lang", "__Host-other"), fc.base64String({ maxLength: 20 })),
  { maxLength: 3 },
);

describe("signed session cookie through the deployed worker (property)", () => {
  it("the issued cookie is accepted; any edit that changes the value the worker reads is refused", async () => {
    const value = (await signIn(live))[SESSION_COOKIE]!;
    expect(await meStatus(`${SESSION_COOKIE}=${value}`)).toBe(200);
    await fc.assert(
      fc.asyncProperty(edit, neighbours, neighbours, async (e, before, after) => {
        const tampered = apply(value, e);
        // Trimmed whitespace or a percent-escape of the same text is the same cookie, not an edit.
        fc.pre(parseCookie(`${SESSION_COOKIE}=${tampered}`)[SESSION_COOKIE] !== value);
        const pairs = [...before, [SESSION_COOKIE, tampered], ...after].map(([n, v]) => `${n}=${v}`);
        expect(await meStatus(pairs.join("; "))).toBe(401);
      }),
      { numRuns: 200 },
    );
    expect(await meStatus(`theme=dark; ${SESSION_COOKIE}=${value}; lang=en`)).toBe(200);
  });

  it("a token with another session's signature is refused; each session's own value is accepted", async () => {
    const [a, b] = await Promise.all([signIn(live), signIn(live)]);
    const [tokenA, sigA] = a[SESSION_COOKIE]!.split(".");
    const [tokenB, sigB] = b[SESSION_COOKIE]!.split(".");
    expect(await meStatus(`${SESSION_COOKIE}=${tokenA}.${sigB}`)).toBe(401);
    expect(await meStatus(`${SESSION_COOKIE}=${tokenB}.${sigA}`)).toBe(401);
    expect(await meStatus(`${SESSION_COOKIE}=${tokenA}.${sigA}`)).toBe(200);
    expect(await meStatus(`${SESSION_COOKIE}=${tokenB}.${sigB}`)).toBe(200);
  });

  it("SESSION_SECRET_PREVIOUS keeps the previous secret's cookies valid; without it they are refused", async () => {
    const rotated = { ...live, SESSION_SECRET: ROTATED, SESSION_SECRET_PREVIOUS: live.SESSION_SECRET } as WorkerEnv;
    const dropped = { ...live, SESSION_SECRET: ROTATED } as WorkerEnv;
    const old = `${SESSION_COOKIE}=${(await signIn(live))[SESSION_COOKIE]}`;
    expect(await meStatus(old, rotated)).toBe(200);
    expect(await meStatus(old, dropped)).toBe(401);
    // After the rotation the new secret signs: the old secret alone no longer verifies new cookies.
    const fresh = `${SESSION_COOKIE}=${(await signIn(rotated))[SESSION_COOKIE]}`;
    expect(await meStatus(fresh, dropped)).toBe(200);
    expect(await meStatus(fresh, live)).toBe(401);
  });
});
