/**
 * Attacks on the shared-signals transmitter (issue 32 review), from an attacker who holds one
 * receiver's token (or none), controls a receiver's push endpoint, or controls a user's account.
 * Every test asserts that a defence holds:
 *
 * - another receiver's stream is answered exactly like no stream, for every operation, and is left
 *   as it was; a stream id cannot be told apart from a malformed or unknown one;
 * - `endpoint_url` reaches no origin the operator did not list for the receiver, however spelled;
 *   `authorization_header` adds no header; a redirect from the endpoint is not followed; a stream
 *   whose origin the operator takes away gets nothing more;
 * - the admin token, a receiver token bent in any way, or a token an operator reused opens nothing;
 *   a receiver whose token variable is missing makes the worker refuse to start;
 * - limits hold (streams, events requested, removed subjects, subject size, JSON nesting, bodies,
 *   verification rate, the endpoint's answer body) without a 500;
 * - no answer or delivery log carries a secret, a SET, a subject or an internal message;
 * - what a receiver sends is signed only as a string (verification `state`), never as a claim, and
 *   a removed subject holds back only the events it names (SSF 1.0 §9.3).
 *
 * Each test comes from its own client address, so the management API's rate limit (per address)
 * never answers for another test.
 */
import {
  createExecutionContext,
  runDurableObjectAlarm,
  runInDurableObject,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIN_VERIFICATION_INTERVAL_S, SsfStreams, STREAM_RETRY_DELAYS_MS } from "../../durable-objects/ssf-streams";
import { pushDue } from "../../durable-objects/ssf-streams/outbox";
import { MAX_REMOVED_SUBJECTS } from "../../durable-objects/ssf-streams/subjects";
import { adminLabelOf } from "../../workers/auth/admin/tokens";
import { receiverTokenProblems } from "../../workers/auth/ssf/transmitter";
import { type ManagementResponse, PUSH_METHOD, SsfReferenceReceiver } from "../ssf-reference/client";
import { EVENT_TYPES, expectVerificationEvent } from "../ssf-reference/set";
import {
  carryOut,
  deleteAllStreams,
  freshPath,
  freshUser,
  joinOrganizations,
  manager,
  pushesTo,
  signIn,
  streamsStub,
  userStub,
  userSubject,
  verified,
} from "./helpers";
import worker, { ISSUER, SIEM, WAREHOUSE } from "./worker";

const SIEM_GRANT = { name: "siem", audience: SIEM, endpoints: [SIEM], maxStreams: 3 };

let now = 0;
let address = "";
let addresses = 0;
const configured = { endpoints: SsfStreams.endpoints };

beforeEach(() => {
  now = Date.now();
  setObjectClock(() => now);
  address = `2001:db8:${(++addresses).toString(16)}::1`;
});

afterEach(async () => {
  setObjectClock(null);
  SsfStreams.endpoints = configured.endpoints;
  await deleteAllStreams();
});

/** A request from this test's client address. */
function fromHere(request: Request): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set("CF-Connecting-IP", address);
  return SELF.fetch(new Request(request, { headers }));
}

async function client(name: "siem" | "warehouse"): Promise<SsfReferenceReceiver> {
  const token = name === "siem" ? env.SSF_TOKEN_SIEM : env.SSF_TOKEN_WAREHOUSE;
  const receiver = new SsfReferenceReceiver({ issuer: ISSUER, token, fetch: fromHere });
  await receiver.discover();
  return receiver;
}

async function newStream(
  receiver: SsfReferenceReceiver,
  endpoint: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await receiver.createStream({ delivery: { method: PUSH_METHOD, endpoint_url: endpoint }, ...extra });
  expect(res.status, res.text).toBe(201);
  return (res.body as { stream_id: string }).stream_id;
}

/** A management call's answer as a receiver can compare it (the rate limit's headers left out). */
function observable(res: ManagementResponse) {
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !name.toLowerCase().startsWith("ratelimit")));
  return { status: res.status, text: res.text, headers };
}

/** Rows the object keeps for a stream. */
function rowsOf(streamId: string) {
  return runInDurableObject(streamsStub(), (_o, state) => {
    const count = (table: string) =>
      Number(
        state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE stream_id = ?`, streamId).one()
          .n,
      );
    const row = state.storage.sql
      .exec<{ authorization_header: string | null; verification_at: number | null; status: string }>(
        "SELECT authorization_header, verification_at, status FROM streams WHERE stream_id = ?",
        streamId,
      )
      .toArray()[0];
    return {
      subjects: count("stream_subjects"),
      outbox: count("stream_outbox"),
      header: row?.authorization_header ?? null,
      verificationAt: row?.verification_at ?? null,
      status: row?.status ?? null,
    };
  });
}

/** The next push to `path` answers `status` with a `Location` header (the reference endpoint's control API). */
async function redirectNext(path: string, status: number, location: string): Promise<void> {
  const query = new URLSearchParams({ path, status: String(status), location });
  const res = await fetch(`https://receiver.control/respond?${query}`, { method: "POST" });
  expect(res.status).toBe(204);
}

const INTERNALS = /\n\s+at |\.ts\b|Error:|SQLITE|stream_subjects|stream_outbox|internal/i;

describe("another receiver's streams", () => {
  it("every operation on another receiver's stream answers exactly like a missing stream and changes nothing", async () => {
    const siem = await client("siem");
    const warehouse = await client("warehouse");
    const theirPath = freshPath();
    const theirs = await newStream(warehouse, `${WAREHOUSE}${theirPath}`, {
      description: "theirs",
      delivery: { method: PUSH_METHOD, endpoint_url: `${WAREHOUSE}${theirPath}`, authorization_header: "Bearer wh-1" },
    });
    const missing = "AAAAAAAAAAAAAAAAAAAAAA";
    const subject = { format: "opaque", id: "anyone" };
    const attempts: [string, (id: string) => Promise<ManagementResponse>][] = [
      ["read", (id) => siem.readStream(id)],
      ["status", (id) => siem.readStatus(id)],
      ["patch", (id) => siem.updateStream({ stream_id: id, description: "pwned" })],
      [
        "put",
        (id) =>
          siem.replaceStream({ stream_id: id, delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/stolen` } }),
      ],
      ["disable", (id) => siem.updateStatus({ stream_id: id, status: "disabled", reason: "pwned" })],
      ["add", (id) => siem.addSubject({ stream_id: id, subject })],
      ["remove", (id) => siem.removeSubject({ stream_id: id, subject })],
      ["verify", (id) => siem.verify({ stream_id: id, state: "probe" })],
      ["delete", (id) => siem.deleteStream(id)],
    ];
    for (const [what, attempt] of attempts) {
      const against = observable(await attempt(theirs));
      expect(against.status, what).toBe(404);
      expect(against, what).toEqual(observable(await attempt(missing)));
    }
    // Theirs is as it was: configuration, status, subjects, nothing queued, its verification window unused.
    const read = await warehouse.readStream(theirs);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ description: "theirs", delivery: { endpoint_url: `${WAREHOUSE}${theirPath}` } });
    expect((await warehouse.readStatus(theirs)).body).toEqual({ stream_id: theirs, status: "enabled" });
    expect(await rowsOf(theirs)).toEqual({
      subjects: 0,
      outbox: 0,
      header: "Bearer wh-1",
      verificationAt: null,
      status: "enabled",
    });
    expect((await warehouse.verify({ stream_id: theirs })).status).toBe(204);
    // And the attacker's own list never shows it.
    expect((await siem.readStream()).body).toEqual([]);
  });

  it("a stream id cannot be probed: malformed, SQL-shaped, padded and other receivers' ids answer the same 404", async () => {
    const siem = await client("siem");
    const warehouse = await client("warehouse");
    const ours = await newStream(siem, `${SIEM}${freshPath()}`);
    const theirs = await newStream(warehouse, `${WAREHOUSE}${freshPath()}`);
    const reference = observable(await siem.readStream("AAAAAAAAAAAAAAAAAAAAAA"));
    expect(reference.status).toBe(404);
    for (const id of [
      theirs,
      "",
      " ",
      `${theirs} `,
      `${theirs}%00`,
      `../${theirs}`,
      "' OR '1'='1",
      `${ours}' OR receiver = 'warehouse`,
      "x' UNION SELECT authorization_header FROM streams --",
      "a".repeat(65),
      "*",
      "%",
    ]) {
      expect(observable(await siem.readStream(id)), JSON.stringify(id)).toEqual(reference);
      expect(observable(await siem.readStatus(id)).status, JSON.stringify(id)).toBe(404);
    }
    // Two stream_id parameters: the first decides, and theirs is still not ours.
    const url = `${ISSUER}/ssf/stream?stream_id=${theirs}&stream_id=${ours}`;
    const doubled = await fromHere(
      new Request(url, { headers: { Authorization: `Bearer ${env.SSF_TOKEN_SIEM}`, Accept: "application/json" } }),
    );
    expect(doubled.status).toBe(404);
    expect((await warehouse.readStream(theirs)).status).toBe(200);
  });

  it("a body naming another receiver's stream a second way decides nothing (__proto__, arrays, objects)", async () => {
    const siem = await client("siem");
    const warehouse = await client("warehouse");
    const ours = await newStream(siem, `${SIEM}${freshPath()}`);
    const theirs = await newStream(warehouse, `${WAREHOUSE}${freshPath()}`, { description: "theirs" });
    // A JSON `__proto__` key is an own property: it is neither the stream_id nor a prototype.
    const proto = await siem.updateStream({} as never, {
      rawBody: `{"__proto__":{"stream_id":"${theirs}"},"stream_id":"${ours}","description":"mine"}`,
    });
    expect(proto.status).toBe(200);
    expect(proto.body).toMatchObject({ stream_id: ours, description: "mine" });
    const hidden = await siem.updateStream({} as never, {
      rawBody: `{"__proto__":{"stream_id":"${theirs}"},"description":"pwned"}`,
    });
    expect(hidden.status).toBe(400);
    for (const streamId of [[theirs], { id: theirs }, 1, null]) {
      const res = await siem.updateStream({ stream_id: streamId, description: "pwned" } as never);
      expect(res.status).toBe(400);
    }
    expect((await warehouse.readStream(theirs)).body).toMatchObject({ description: "theirs" });
  });
});

describe("request forwarding through endpoint_url", () => {
  it("refuses every spelling that reaches another host, port, scheme or credentials, on create, PATCH and PUT", async () => {
    const siem = await client("siem");
    const path = freshPath();
    const ours = await newStream(siem, `${SIEM}${path}`);
    const refused = [
      `${WAREHOUSE}/events`,
      "https://siem.example.com.evil.test/x",
      "https://siem.example.com@evil.test/x",
      "https://evil.test#@siem.example.com/x",
      "https://evil.test?@siem.example.com/x",
      "https://evil.test\\@siem.example.com/x",
      "https://siem.example.com%2f@evil.test/x",
      "https://siem.example.com%40evil.test/x",
      "https://siem.example.com./x",
      "https://siem.exаmple.net/x", // Cyrillic а: a punycode host
      "https://xn--siem-example-9cb.net/x",
      "https://[::1]/x",
      "https://[::ffff:127.0.0.1]/x",
      "https://127.0.0.1/x",
      "https://2130706433/x",
      "https://0x7f.1/x",
      "https://169.254.169.254/latest/meta-data",
      "https://siem.example.com:8443/x",
      "https://siem.example.com:443@evil.test/x",
      "http://siem.example.com/x",
      "wss://siem.example.com/x",
      "ftp://siem.example.com/x",
      "https://user@siem.example.com/x",
      "https://:secret@siem.example.com/x",
      "https://siem.example.com/x#fragment",
      "//evil.test/x",
      "/relative/x",
      "javascript:alert(1)",
      "data:text/plain,x",
      "",
      `https://siem.example.com/${"a".repeat(2100)}`,
    ];
    for (const url of refused) {
      const delivery = { method: PUSH_METHOD, endpoint_url: url };
      for (const res of [
        await siem.createStream({ delivery }),
        await siem.updateStream({ stream_id: ours, delivery }),
        await siem.replaceStream({ stream_id: ours, delivery }),
      ]) {
        expect([400, 403], url).toContain(res.status);
        // The refusal never echoes what was sent.
        expect(res.text).not.toContain("evil");
      }
    }
    const list = (await siem.readStream()).body as { stream_id: string; delivery: { endpoint_url: string } }[];
    expect(list.map((c) => [c.stream_id, c.delivery.endpoint_url])).toEqual([[ours, `${SIEM}${path}`]]);
  });

  it("accepts other spellings of an allowed origin only as that origin: the normalized URL is stored and pushed to", async () => {
    const siem = await client("siem");
    for (const url of [
      "HTTPS://SIEM.EXAMPLE.COM/a",
      "https://siem.example.com:443/a",
      "https://siem.example.com:0443/a",
      "https:\\\\siem.example.com\\a",
      "https://siem%2eexample.com/a",
      "https://siem。example.com/a",
      " https://siem.example.com/a\n",
      "https://siem.exa\tmple.com/a",
      "https://siem.example.com/b/%2e%2e/a",
    ]) {
      const res = await siem.createStream({ delivery: { method: PUSH_METHOD, endpoint_url: url } });
      expect(res.status, JSON.stringify(url)).toBe(201);
      const config = res.body as { stream_id: string; delivery: { endpoint_url: string } };
      expect(config.delivery.endpoint_url, JSON.stringify(url)).toBe(`${SIEM}/a`);
      expect((await siem.deleteStream(config.stream_id)).status).toBe(204);
    }
    // A backslash before `@` ends the host: what looks like userinfo is a path on the allowed origin.
    const id = await newStream(siem, "https://siem.example.com\\@evil.test/in");
    expect(((await siem.readStream(id)).body as { delivery: { endpoint_url: string } }).delivery.endpoint_url).toBe(
      `${SIEM}/@evil.test/in`,
    );
    expect((await siem.verify({ stream_id: id })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    const [push] = await pushesTo("/@evil.test/in");
    expect(new URL(push!.url).origin).toBe(SIEM);
  });

  it("does not follow a redirect from the receiver's endpoint (another origin or its own): the SET is retried", async () => {
    const siem = await client("siem");
    const [path, elsewhere, sameOrigin] = [freshPath(), freshPath(), freshPath()];
    const id = await newStream(siem, `${SIEM}${path}`, {
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}${path}`, authorization_header: "Bearer inbox-1" },
    });
    await redirectNext(path, 307, `https://evil.test${elsewhere}`);
    await redirectNext(path, 308, `${SIEM}${sameOrigin}`);
    expect((await siem.verify({ stream_id: id, state: "r" })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    now += STREAM_RETRY_DELAYS_MS[0]!;
    await runDurableObjectAlarm(streamsStub());
    now += STREAM_RETRY_DELAYS_MS[1]!;
    await runDurableObjectAlarm(streamsStub());
    expect(await pushesTo(elsewhere)).toEqual([]);
    expect(await pushesTo(sameOrigin)).toEqual([]);
    const pushes = await pushesTo(path);
    expect(pushes.map((p) => p.status)).toEqual([307, 308, 202]);
    expect(new Set(pushes.map((p) => p.body)).size).toBe(1);
    const [overview] = (await streamsStub().overview()).filter((o) => o.configuration.stream_id === id);
    expect(overview!.recent.map((r) => [r.outcome, r.status])).toEqual([
      ["delivered", 202],
      ["failed", 308],
      ["failed", 307],
    ]);
  });

  it("authorization_header adds no header and no line: anything but one printable ASCII value is refused", async () => {
    const siem = await client("siem");
    const path = freshPath();
    const id = await newStream(siem, `${SIEM}${path}`, {
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}${path}`, authorization_header: "Bearer good-1" },
    });
    for (const header of [
      "Bearer a\r\nX-Evil: 1",
      "Bearer a\nX-Evil: 1",
      "Bearer a\rX-Evil: 1",
      "Bearer a\u0000b",
      "Bearer a\tb",
      "Bearer é",
      "Bearer \u2028",
      "x".repeat(4097),
      "",
      42,
      { "X-Evil": "1" },
      ["Bearer a", "Bearer b"],
      null,
    ]) {
      const delivery = { method: PUSH_METHOD, endpoint_url: `${SIEM}${path}`, authorization_header: header };
      expect((await siem.createStream({ delivery } as never)).status, JSON.stringify(header)).toBe(400);
      expect((await siem.updateStream({ stream_id: id, delivery } as never)).status, JSON.stringify(header)).toBe(400);
    }
    expect((await siem.verify({ stream_id: id })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    const [push] = await pushesTo(path);
    expect(push!.headers.authorization).toBe("Bearer good-1");
    expect(Object.keys(push!.headers).filter((h) => h.startsWith("x-"))).toEqual([]);
  });

  it("a stream whose origin the operator took away gets nothing more, until it points at an allowed one", async () => {
    const siem = await client("siem");
    const path = freshPath();
    const id = await newStream(siem, `${SIEM}${path}`);
    // The operator replaces the receiver's origin (the old domain is being given up).
    SsfStreams.endpoints = { ...configured.endpoints, siem: ["https://siem-new.example.net"] };
    const user = freshUser();
    await manager().revokeSession(await signIn(user));
    await carryOut(user);
    expect((await siem.verify({ stream_id: id, state: "after" })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    expect(await pushesTo(path)).toEqual([]);
    // The origin allowed again: what was held goes with the next SET (the revocation was never queued for it).
    SsfStreams.endpoints = configured.endpoints;
    now += MIN_VERIFICATION_INTERVAL_S * 1_000;
    expect((await siem.verify({ stream_id: id, state: "again" })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => s.event.state)).toEqual(["after", "again"]);
  });
});

describe("token confusion", () => {
  const paths: [string, string][] = [
    ["GET", "/ssf/stream"],
    ["GET", "/ssf/status?stream_id=x"],
    ["POST", "/ssf/subjects/add"],
    ["POST", "/ssf/subjects/remove"],
    ["POST", "/ssf/verify"],
  ];
  const call = (method: string, path: string, headers: HeadersInit, target: typeof fromHere = fromHere) =>
    target(
      new Request(`${ISSUER}${path}`, {
        method,
        headers,
        ...(method === "POST" ? { body: JSON.stringify({ stream_id: "x" }) } : {}),
      }),
    );

  it("no Authorization header opens nothing, even with a receiver named `missing`", async () => {
    for (const [method, path] of paths) {
      const res = await call(method, path, {});
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="ssf"');
    }
    // Its own token still opens its own streams.
    expect((await call("GET", "/ssf/stream", { Authorization: `Bearer ${env.SSF_TOKEN_MISSING}` })).status).toBe(200);
  });

  it("the shared bearer matcher tells a token labelled `missing` from no token at all (admin labels too)", async () => {
    const tokens = [{ label: "missing", token: env.SSF_TOKEN_MISSING }];
    const ask = (headers: HeadersInit) => adminLabelOf(new Request(`${ISSUER}/x`, { headers }), tokens);
    expect(await ask({ Authorization: `Bearer ${env.SSF_TOKEN_MISSING}` })).toEqual({ label: "missing" });
    expect(await ask({})).toBe("missing");
    expect(await ask({ Authorization: "Bearer not-that-token" })).toBeNull();
  });

  it("the admin token and every bent or misplaced receiver token answer 401 with a Bearer challenge", async () => {
    const token = env.SSF_TOKEN_SIEM;
    for (const [method, path] of paths) {
      const res = await call(method, path, { Authorization: `Bearer ${env.ADMIN_API_TOKEN}` });
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="ssf"');
    }
    const twice = new Headers();
    twice.append("Authorization", `Bearer ${token}`);
    twice.append("Authorization", `Bearer ${token}`);
    const bent: HeadersInit[] = [
      { Authorization: `Bearer ${token.toUpperCase()}` },
      { Authorization: `Bearer ${token.toLowerCase()}` },
      { Authorization: `Bearer ${token.slice(0, -1)}` },
      { Authorization: `Bearer ${token}=` },
      { Authorization: `Bearer ${token},` },
      { Authorization: `Bearer ${token} ${token}` },
      { Authorization: `Bearer "${token}"` },
      { Authorization: `Bearer Bearer ${token}` },
      { Authorization: `Bearer${token}` },
      { Authorization: token },
      { Authorization: `Token ${token}` },
      { Authorization: `Basic ${btoa(`${token}:`)}` },
      { Authorization: `Bearer ${env.SSF_TOKEN_WAREHOUSE}${token}` },
      { Authorization: `Bearer ${env.SSF_SIGNING_KEYS.slice(0, 40)}` },
      { Authorization: "Bearer undefined" },
      { Authorization: "Bearer null" },
      { Authorization: "Bearer " },
      { "X-Authorization": `Bearer ${token}` },
      { Cookie: `token=${token}` },
      twice,
    ];
    for (const headers of bent) {
      const res = await call("GET", "/ssf/stream", headers);
      expect(res.status, JSON.stringify([...new Headers(headers)]).replaceAll(token, "<token>")).toBe(401);
      expect(await res.text()).not.toContain(token);
    }
    // RFC 6750 §2.2/§2.3 (form body, query) are not accepted either.
    expect((await call("GET", `/ssf/stream?access_token=${token}`, {})).status).toBe(401);
    const form = await fromHere(
      new Request(`${ISSUER}/ssf/verify`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: `access_token=${token}`,
      }),
    );
    expect(form.status).toBe(401);
    // The scheme's case and the whitespace around the token are not the token: these still authenticate.
    for (const header of [`bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`, `Bearer\t${token}`]) {
      expect((await call("GET", "/ssf/stream", { Authorization: header })).status).toBe(200);
    }
  });

  it("a receiver token opens nothing in the admin API", async () => {
    for (const token of [env.SSF_TOKEN_SIEM, env.SSF_TOKEN_WAREHOUSE]) {
      const res = await fromHere(
        new Request(`${ISSUER}/admin/ssf/streams`, { headers: { Authorization: `Bearer ${token}` } }),
      );
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain('"streams"');
    }
  });

  it("a token an operator reused (an admin token, another receiver's) opens nothing: it does not say who calls", async () => {
    const siem = await client("siem");
    const id = await newStream(siem, `${SIEM}${freshPath()}`);
    const asWorker = async (overrides: Record<string, unknown>, token: string) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch!(
        new Request(`${ISSUER}/ssf/stream?stream_id=${id}`, {
          headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": address },
        }) as never,
        { ...env, ...overrides } as never,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    // The configuration as it is: the receiver reads its stream.
    expect((await asWorker({}, env.SSF_TOKEN_SIEM)).status).toBe(200);
    // The admin token set to the receiver's value: neither that value nor the admin token opens the stream.
    expect((await asWorker({ ADMIN_API_TOKEN: env.SSF_TOKEN_SIEM }, env.SSF_TOKEN_SIEM)).status).toBe(401);
    const labelled = { ADMIN_API_TOKENS: `ops:${env.SSF_TOKEN_SIEM}` };
    expect((await asWorker(labelled, env.SSF_TOKEN_SIEM)).status).toBe(401);
    // Two receivers given one value: the token could be either's.
    const shared = { SSF_TOKEN_WAREHOUSE: env.SSF_TOKEN_SIEM };
    expect((await asWorker(shared, env.SSF_TOKEN_SIEM)).status).toBe(401);
  });

  it("a receiver whose token variable is missing: the start-up check refuses the worker, no empty token matches", async () => {
    expect(receiverTokenProblems({ SSF_TOKEN_SIEM: env.SSF_TOKEN_SIEM }, ["SSF_TOKEN_SIEM", "SSF_TOKEN_X"])).toEqual([
      { variable: "SSF_TOKEN_X", rule: "required" },
    ]);
    for (const missing of [undefined, ""]) {
      for (const token of [env.SSF_TOKEN_SIEM, "undefined", ""]) {
        const ctx = createExecutionContext();
        const res = await worker.fetch!(
          new Request(`${ISSUER}/ssf/stream`, {
            headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": address },
          }) as never,
          { ...env, SSF_TOKEN_WAREHOUSE: missing } as never,
          ctx,
        );
        await waitOnExecutionContext(ctx);
        expect(res.status).toBe(503);
        expect(await res.text()).not.toContain("SSF_TOKEN");
      }
    }
  });
});

describe("resource exhaustion", () => {
  it("a receiver's stream limit holds and is its own: another receiver's room is not used", async () => {
    const siem = await client("siem");
    const warehouse = await client("warehouse");
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await newStream(siem, `${SIEM}${freshPath()}`));
    for (let i = 0; i < 3; i++) {
      expect((await siem.createStream({ delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/x` } })).status).toBe(
        409,
      );
    }
    await newStream(warehouse, `${WAREHOUSE}${freshPath()}`);
    await newStream(warehouse, `${WAREHOUSE}${freshPath()}`);
    expect(
      (await warehouse.createStream({ delivery: { method: PUSH_METHOD, endpoint_url: `${WAREHOUSE}/x` } })).status,
    ).toBe(409);
    expect((await siem.deleteStream(ids[0]!)).status).toBe(204);
    await newStream(siem, `${SIEM}${freshPath()}`);
    expect(((await siem.readStream()).body as unknown[]).length).toBe(3);
  });

  it("events_requested: at most 64 URIs of at most 512 characters, strings only; duplicates are kept once", async () => {
    const siem = await client("siem");
    const delivery = { method: PUSH_METHOD, endpoint_url: `${SIEM}/e` };
    for (const events of [
      Array.from({ length: 65 }, (_, i) => `urn:e:${i}`),
      [`urn:${"e".repeat(510)}`],
      [""],
      [1],
      [null],
      [{ uri: EVENT_TYPES.sessionRevoked }],
      [[EVENT_TYPES.sessionRevoked]],
      { 0: EVENT_TYPES.sessionRevoked, length: 1 },
      EVENT_TYPES.sessionRevoked,
    ]) {
      expect((await siem.createStream({ delivery, events_requested: events } as never)).status).toBe(400);
    }
    const dup = Array.from({ length: 64 }, () => EVENT_TYPES.sessionRevoked);
    const res = await siem.createStream({ delivery, events_requested: dup });
    expect(res.status).toBe(201);
    expect((res.body as { events_requested: string[] }).events_requested).toEqual([EVENT_TYPES.sessionRevoked]);
  });

  it("removed subjects stop at 1000 a stream (400), a subject over 2 KiB or malformed is refused", async () => {
    const siem = await client("siem");
    const id = await newStream(siem, `${SIEM}${freshPath()}`);
    // Straight to the object (the HTTP route's rate limit is not what is tested here).
    for (let i = 0; i < MAX_REMOVED_SUBJECTS; i++) {
      const answer = await streamsStub().changeSubject(
        SIEM_GRANT,
        { stream_id: id, subject: { format: "opaque", id: `s-${i}` } },
        "remove",
      );
      expect(answer.status).toBe(204);
    }
    const over = await siem.removeSubject({ stream_id: id, subject: { format: "opaque", id: "one-more" } });
    expect(over.status).toBe(400);
    expect((await rowsOf(id)).subjects).toBe(MAX_REMOVED_SUBJECTS);
    // Adding back is a delete: always possible, and it makes room again.
    expect((await siem.addSubject({ stream_id: id, subject: { format: "opaque", id: "s-0" } })).status).toBe(200);
    expect((await siem.removeSubject({ stream_id: id, subject: { format: "opaque", id: "one-more" } })).status).toBe(
      204,
    );
    expect((await rowsOf(id)).subjects).toBe(MAX_REMOVED_SUBJECTS);
    const id2 = await newStream(siem, `${SIEM}${freshPath()}`);
    for (const subject of [
      { format: "opaque", id: "x".repeat(2_100) },
      { format: "opaque", id: "é".repeat(1_100) },
      { format: "opaque", ids: Array.from({ length: 1_000 }, (_, i) => i) },
      { format: "" },
      { format: 1, id: "x" },
      { format: ["opaque"], id: "x" },
      { id: "x" },
      ["opaque", "x"],
      "opaque:x",
      null,
    ]) {
      expect((await siem.removeSubject({ stream_id: id2, subject } as never)).status, JSON.stringify(subject)).toBe(
        400,
      );
    }
    expect((await rowsOf(id2)).subjects).toBe(0);
  });

  it("JSON nested deeper than any request needs is refused with 400 on every endpoint, never a 500", async () => {
    const siem = await client("siem");
    const id = await newStream(siem, `${SIEM}${freshPath()}`);
    for (const depth of [17, 100, 2_000, 7_000]) {
      const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      const bodies: [string, string, string][] = [
        [
          "configuration_endpoint",
          "POST",
          `{"delivery":{"method":"${PUSH_METHOD}","endpoint_url":"${SIEM}/d"},"description":${deep}}`,
        ],
        ["configuration_endpoint", "PATCH", `{"stream_id":"${id}","events_requested":${deep}}`],
        ["configuration_endpoint", "PUT", `{"stream_id":"${id}","delivery":${deep}}`],
        ["status_endpoint", "POST", `{"stream_id":"${id}","status":"paused","reason":${deep}}`],
        ["add_subject_endpoint", "POST", `{"stream_id":"${id}","subject":{"format":"opaque","id":${deep}}}`],
        ["remove_subject_endpoint", "POST", `{"stream_id":"${id}","subject":{"format":"opaque","x":${deep}}}`],
        ["verification_endpoint", "POST", `{"stream_id":"${id}","state":${deep}}`],
      ];
      for (const [endpoint, method, rawBody] of bodies) {
        const res = await siem.send(endpoint as never, method, { rawBody });
        expect(res.status, `${method} ${endpoint} at depth ${depth}`).toBe(400);
        expect(res.text).not.toMatch(INTERNALS);
      }
    }
    // The stream is as it was, and a real complex subject (three levels into the body) still goes through.
    expect((await siem.readStatus(id)).body).toEqual({ stream_id: id, status: "enabled" });
    const complex = {
      format: "complex",
      user: userSubject("u"),
      device: { format: "ip-addresses", ips: ["10.0.0.1"] },
    };
    expect((await siem.removeSubject({ stream_id: id, subject: complex })).status).toBe(204);
  });

  it("bodies over 16 KiB are refused unread, streamed or declared; empty, non-JSON and non-object bodies are 400", async () => {
    const siem = await client("siem");
    const big = JSON.stringify({
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/b` },
      pad: "x".repeat(17_000),
    });
    expect((await siem.createStream({}, { rawBody: big })).status).toBe(400);
    const chunks = new TextEncoder().encode(big);
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks.length; i += 1_024) controller.enqueue(chunks.slice(i, i + 1_024));
        controller.close();
      },
    });
    const res = await fromHere(
      new Request(`${ISSUER}/ssf/stream`, {
        method: "POST",
        headers: { Authorization: `Bearer ${env.SSF_TOKEN_SIEM}`, "Content-Type": "application/json" },
        body: streamed,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(400);
    const lying = await fromHere(
      new Request(`${ISSUER}/ssf/stream`, {
        method: "POST",
        headers: { Authorization: `Bearer ${env.SSF_TOKEN_SIEM}`, "Content-Length": "20000" },
        body: "{}",
      }),
    );
    expect([400, 413]).toContain(lying.status);
    for (const rawBody of ["", " ", "null", "[]", '"s"', "1e999", "\ufeff{}", "{'a':1}", '{"a":1', "true"]) {
      const answer = await siem.createStream({}, { rawBody });
      expect(answer.status, JSON.stringify(rawBody)).toBe(400);
      expect(answer.text).not.toMatch(INTERNALS);
    }
    expect((await siem.readStream()).body).toEqual([]);
  });

  it("a description or reason is cut at 256 characters without splitting a character in two", async () => {
    const siem = await client("siem");
    const description = `${"d".repeat(255)}😀tail`;
    const id = await newStream(siem, `${SIEM}${freshPath()}`, { description });
    const read = (await siem.readStream(id)).body as { description: string };
    expect(read.description).toBe("d".repeat(255));
    const reason = `${"r".repeat(255)}😀tail`;
    const status = await siem.updateStatus({ stream_id: id, status: "paused", reason });
    expect((status.body as { reason: string }).reason).toBe("r".repeat(255));
    const long = await siem.updateStream({ stream_id: id, description: "é".repeat(5_000) });
    expect((long.body as { description: string }).description).toBe("é".repeat(256));
  });

  it("verification spam: one SET an interval, the rest 429 with Retry-After and nothing queued", async () => {
    const siem = await client("siem");
    const id = await newStream(siem, `${SIEM}${freshPath()}`);
    // Paused: what is queued stays visible.
    await siem.updateStatus({ stream_id: id, status: "paused" });
    expect((await siem.verify({ stream_id: id, state: "1" })).status).toBe(204);
    for (let i = 0; i < 10; i++) {
      now += 1_000;
      const res = await siem.verify({ stream_id: id, state: `spam-${i}` });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("Retry-After"))).toBe(MIN_VERIFICATION_INTERVAL_S - (i + 1));
    }
    expect((await rowsOf(id)).outbox).toBe(1);
    now += 20_000;
    expect((await siem.verify({ stream_id: id, state: "2" })).status).toBe(204);
    expect((await rowsOf(id)).outbox).toBe(2);
    // A refused state does not take the next window.
    now += MIN_VERIFICATION_INTERVAL_S * 1_000;
    expect((await siem.verify({ stream_id: id, state: "s".repeat(1_025) })).status).toBe(400);
    expect((await siem.verify({ stream_id: id, state: { nested: "x" } } as never)).status).toBe(400);
    expect((await siem.verify({ stream_id: id, state: "3" })).status).toBe(204);
    expect((await rowsOf(id)).outbox).toBe(3);
  });

  it("an endpoint's error answer is read at most 4 KiB, however large it is", async () => {
    const siem = await client("siem");
    const id = await newStream(siem, `${SIEM}${freshPath()}`);
    let pulled = 0;
    const huge = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (pulled >= 8 * 1024 * 1024) return controller.close();
            pulled += 64 * 1024;
            controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
          },
        }),
        { status: 400, headers: { "Content-Type": "application/json" } },
      )) as typeof fetch;
    const run = { delivered: 0, failed: 0, dropped: 0, refused: 0 };
    await runInDurableObject(streamsStub(), async (_o, state) => {
      state.storage.sql.exec(
        "INSERT INTO stream_outbox (stream_id, jti, event_type, set_jws, next_at) VALUES (?, 'j-huge', 't', 'a.b.c', 0)",
        id,
      );
      await pushDue(
        state.storage.sql,
        { streamId: id, endpointUrl: `${SIEM}/h`, authorizationHeader: null },
        now,
        run,
        huge,
      );
    });
    expect(pulled).toBeLessThanOrEqual(128 * 1024);
    // Not an RFC 8935 error the transmitter can read: a 400 all the same, not retried.
    expect(run).toEqual({ delivered: 0, failed: 0, dropped: 0, refused: 1 });
  });
});

describe("information leaks", () => {
  it("no answer echoes the endpoint secret, what was sent, or internals", async () => {
    const siem = await client("siem");
    const secret = "Bearer endpoint-secret-4711";
    const path = freshPath();
    const created = await siem.createStream({
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}${path}`, authorization_header: secret },
      description: "desc",
    });
    const id = (created.body as { stream_id: string }).stream_id;
    const answers: ManagementResponse[] = [
      created,
      await siem.readStream(id),
      await siem.readStream(),
      await siem.updateStream({ stream_id: id, description: "patched" }),
      await siem.replaceStream({
        stream_id: id,
        delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}${path}`, authorization_header: secret },
      }),
      await siem.readStatus(id),
      await siem.updateStatus({ stream_id: id, status: "enabled" }),
    ];
    const errors: ManagementResponse[] = [
      await siem.createStream({ delivery: { method: PUSH_METHOD, endpoint_url: "https://evil.test/ECHO-1" } }),
      await siem.updateStream({
        stream_id: id,
        delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}/x`, authorization_header: "Bearer ECHO-2\n" },
      }),
      await siem.updateStream({ stream_id: "ECHO-3", description: "x" }),
      await siem.createStream({}, { rawBody: "{ECHO-4" }),
      await siem.createStream({ delivery: { method: "urn:ECHO-5" } } as never),
      await siem.updateStream({ stream_id: id, iss: "https://ECHO-6.example" } as never),
      await siem.updateStatus({ stream_id: id, status: "ECHO-7" } as never),
      await siem.removeSubject({ stream_id: id, subject: { format: "ECHO-8".repeat(20) } }),
      await siem.send("verification_endpoint", "GET"),
      await siem.readStream(undefined, { token: "ECHO-9" }),
    ];
    for (const res of [...answers, ...errors]) {
      expect(res.text).not.toContain("endpoint-secret-4711");
      expect(res.text).not.toMatch(/ECHO-\d/);
      expect(res.text).not.toMatch(INTERNALS);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
    }
    for (const res of errors) expect(Object.keys(res.body as object).sort()).toEqual(["error", "message"]);
    // The secret is stored, and sent only to the receiver's own endpoint.
    expect((await rowsOf(id)).header).toBe(secret);
  });

  it("the operator's delivery log holds no SET, subject, state, description or secret", async () => {
    const siem = await client("siem");
    const path = freshPath();
    const id = await newStream(siem, `${SIEM}${path}`, {
      description: "DESCRIPTION-MARK",
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}${path}`, authorization_header: "Bearer LOG-SECRET" },
    });
    const user = freshUser();
    const session = await signIn(user);
    await manager().revokeSession(session);
    await carryOut(user);
    expect((await siem.verify({ stream_id: id, state: "STATE-MARK" })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    expect(await pushesTo(path)).toHaveLength(2);
    const res = await SELF.fetch(`${ISSUER}/admin/ssf/streams?recent=100`, {
      headers: { Authorization: `Bearer ${env.ADMIN_API_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const leak of ["LOG-SECRET", "STATE-MARK", user, session, "eyJ"]) expect(text).not.toContain(leak);
    const { streams } = JSON.parse(text) as { streams: { configuration: { stream_id: string }; recent: object[] }[] };
    const ours = streams.find((s) => s.configuration.stream_id === id)!;
    for (const attempt of ours.recent) {
      expect(Object.keys(attempt).sort()).toEqual(
        ["attempt", "at", "err", "eventType", "jti", "outcome", "status", "streamId"].sort(),
      );
    }
  });
});

describe("what the transmitter signs", () => {
  it("a verification state is signed as a string: JSON inside it adds no claim or event", async () => {
    const siem = await client("siem");
    const path = freshPath();
    const id = await newStream(siem, `${SIEM}${path}`, {
      description: "DESCRIPTION-MARK",
      aud: "https://victim.example",
    });
    const state = `","aud":"https://victim.example","events":{"${EVENT_TYPES.sessionRevoked}":{}},"x":"\u2028</script>`;
    expect((await siem.verify({ stream_id: id, state })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    const [push] = await pushesTo(path);
    const [set] = await verified([push!], SIEM, now);
    expectVerificationEvent(set!, id, state);
    expect(Object.keys(set!.claims.events)).toEqual([EVENT_TYPES.verification]);
    expect(set!.claims.aud).toBe(SIEM);
    expect(set!.claims.iss).toBe(ISSUER);
    expect(Object.keys(set!.claims).sort()).toEqual(["aud", "events", "iat", "iss", "jti", "sub_id"]);
    // The description is the receiver's note to itself: it is never signed.
    const payload = atob(push!.body.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"));
    expect(payload).not.toContain("DESCRIPTION-MARK");
  });

  it("a removed subject with no member, or none in common with an event, holds nothing back (§9.3)", async () => {
    const siem = await client("siem");
    const path = freshPath();
    const id = await newStream(siem, `${SIEM}${path}`);
    // No member, members that are no simple subject: not subjects (SSF 1.0 §3.2: one or more simple members).
    for (const subject of [
      { format: "complex" },
      { format: "complex", user: "someone" },
      { format: "complex", user: { id: "no-format" } },
      { format: "complex", user: { format: "complex", tenant: { format: "opaque", id: "t" } } },
    ]) {
      expect((await siem.removeSubject({ stream_id: id, subject } as never)).status, JSON.stringify(subject)).toBe(400);
    }
    // Accepted, but they say nothing about our users' sessions: nothing is held back.
    for (const subject of [
      { format: "complex", device: { format: "opaque", id: "laptop-1" } },
      { format: "complex", group: { format: "opaque", id: "g" }, application: { format: "opaque", id: "a" } },
    ]) {
      expect((await siem.removeSubject({ stream_id: id, subject })).status).toBe(204);
    }
    const proto = await siem.removeSubject({} as never, {
      rawBody: `{"stream_id":"${id}","subject":{"format":"complex","__proto__":{"format":"opaque","id":"p"}}}`,
    });
    expect([204, 400]).toContain(proto.status);
    const user = freshUser();
    await signIn(user);
    await manager().revokeUser(user);
    await userStub(user).applyProviderEvent({
      id: `event_${user}_m`,
      type: "organization_membership.created",
      occurredAt: now,
      organizationId: "org_any",
      organizationSlug: "any",
      role: "member",
    });
    await carryOut(user);
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => s.eventType).sort()).toEqual([EVENT_TYPES.sessionRevoked, EVENT_TYPES.tokenClaimsChange]);
  });

  it("a removal holds back only the named subject, on the remover's stream only", async () => {
    const siem = await client("siem");
    const warehouse = await client("warehouse");
    const [siemPath, warehousePath] = [freshPath(), freshPath()];
    const ours = await newStream(siem, `${SIEM}${siemPath}`);
    await newStream(warehouse, `${WAREHOUSE}${warehousePath}`);
    const [quiet, other, member] = [freshUser(), freshUser(), freshUser()];
    expect((await siem.removeSubject({ stream_id: ours, subject: userSubject(quiet) })).status).toBe(204);
    // A complex subject naming a user and a tenant holds back that user's events in that tenant, not in another.
    const pair = { format: "complex", user: userSubject(member), tenant: { format: "opaque", id: "org_one" } };
    expect((await siem.removeSubject({ stream_id: ours, subject: pair })).status).toBe(204);
    await manager().revokeSession(await signIn(quiet));
    await manager().revokeSession(await signIn(other));
    await signIn(member);
    await joinOrganizations(member, ["org_one", "org_two"], now);
    for (const user of [quiet, other, member]) await carryOut(user);
    const seen = (sets: Awaited<ReturnType<typeof verified>>) =>
      sets
        .map((s) => {
          const user = (s.claims.sub_id.user as { sub: string }).sub;
          const tenant = (s.claims.sub_id.tenant as { id: string } | undefined)?.id;
          return tenant ? `${user}@${tenant}` : user;
        })
        .sort();
    expect(seen(await verified(await pushesTo(siemPath), SIEM, now))).toEqual([other, `${member}@org_two`].sort());
    expect(seen(await verified(await pushesTo(warehousePath), "warehouse-prod", now))).toEqual(
      [quiet, other, `${member}@org_one`, `${member}@org_two`].sort(),
    );
  });

  it("a stream's removed subjects are read once a hand-off, not once for each SET", async () => {
    const siem = await client("siem");
    const path = freshPath();
    const id = await newStream(siem, `${SIEM}${path}`);
    for (let i = 0; i < 50; i++) {
      await streamsStub().changeSubject(
        SIEM_GRANT,
        { stream_id: id, subject: { format: "complex", user: userSubject(`other-${i}`) } },
        "remove",
      );
    }
    const user = freshUser();
    for (let i = 0; i < 5; i++) await signIn(user);
    await manager().revokeUser(user);
    const { events } = await manager().timeline(user);
    const revoked = events.filter((e) => e.type === "session.revoked");
    const reads = await runInDurableObject(streamsStub(), async (instance: SsfStreams, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec;
      let n = 0;
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        if (query.includes("FROM stream_subjects")) n++;
        return exec.call(sql, query, ...bindings);
      }) as typeof sql.exec;
      try {
        expect(await instance.publish(revoked)).toBe(5);
      } finally {
        sql.exec = exec;
      }
      return n;
    });
    expect(reads).toBe(1);
  });
});

describe("SQL in strings", () => {
  it("is stored and answered verbatim (parameters are bound); the tables are intact", async () => {
    const siem = await client("siem");
    const sql = "'); DROP TABLE streams; --";
    const id = await newStream(siem, `${SIEM}${freshPath()}`, {
      description: sql,
      events_requested: [`urn:${sql}`, EVENT_TYPES.sessionRevoked],
    });
    const read = (await siem.readStream(id)).body as { description: string; events_requested: string[] };
    expect(read.description).toBe(sql);
    expect(read.events_requested).toEqual([`urn:${sql}`, EVENT_TYPES.sessionRevoked]);
    expect(
      ((await siem.updateStatus({ stream_id: id, status: "paused", reason: sql })).body as { reason: string }).reason,
    ).toBe(sql);
    expect((await siem.removeSubject({ stream_id: id, subject: { format: "opaque", id: sql } })).status).toBe(204);
    expect((await siem.addSubject({ stream_id: id, subject: { format: "opaque", id: `x' OR '1'='1` } })).status).toBe(
      200,
    );
    expect((await rowsOf(id)).subjects).toBe(1);
    const tables = await runInDurableObject(streamsStub(), (_o, state) =>
      state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'stream%' ORDER BY name",
        )
        .toArray()
        .map((r) => r.name),
    );
    expect(tables).toEqual(["stream_deliveries", "stream_outbox", "stream_subjects", "streams"]);
  });
});
