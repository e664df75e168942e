/**
 * New-device detection and retention. A device is a browser on a system without versions, in a
 * place (country, region, city); the first sign-in from a pair is `session.new_device`. The alarm
 * prunes timeline events, known devices and receipts older than the retention (90 days by
 * default), by the objects' injected clock: afterwards a sign-in from a forgotten device is new again.
 * The place is the edge's `request.cf` (a populated one, as Cloudflare sends it), or a source given instead.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import { AuthServiceProvider, checkAuthEnvironment } from "gatehouse-workers/auth";
import { FakeIdentityClient } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import { objectNow } from "../../durable-objects/clock";
import type { UserSessions } from "../../durable-objects/user-sessions";
import { MAX_KNOWN_DEVICES, noteDevice } from "../../durable-objects/user-sessions/security-record/devices";
import { DEFAULT_RETENTION_MS } from "../../durable-objects/user-sessions/security-record/timeline";
import { DEV_LOCATION_HEADER, devHeaderLocation, edgeLocation } from "../../workers/auth/location";
import {
  atObjectTime,
  BERLIN,
  eventsOf,
  FIREFOX_140_MAC,
  FIREFOX_141_MAC,
  freshAddress,
  freshUser,
  identity,
  manager,
  ORIGIN,
  PARIS,
  SAFARI_IPHONE,
  signIn,
  stubOf,
} from "./helpers";

const DAY = 24 * 3600 * 1000;

/**
 * `request.cf` as Cloudflare's edge attaches it to a request from London: the fields of
 * `IncomingRequestCfProperties` (https://developers.cloudflare.com/workers/runtime-apis/request/#incomingrequestcfproperties,
 * typed in @cloudflare/workers-types): `colo` "the three-letter IATA airport code of the data center
 * that the request hit", `country` ISO 3166-1 alpha-2 (omitted when Cloudflare cannot tell),
 * `region` the ISO 3166-2 name of the first-level region and `city` when known, plus the connection
 * facts the edge sends beside them. The worker keeps `country`, `region`, `city` and `colo` (LONDON).
 */
const LONDON_EDGE = {
  asn: 5607,
  asOrganization: "Sky UK",
  clientTcpRtt: 12,
  colo: "LHR",
  edgeRequestKeepAliveStatus: 1,
  httpProtocol: "HTTP/2",
  requestPriority: "",
  tlsVersion: "TLSv1.3",
  tlsCipher: "AEAD-AES128-GCM-SHA256",
  country: "GB",
  continent: "EU",
  city: "London",
  postalCode: "EC1A",
  latitude: "51.50740",
  longitude: "-0.12780",
  timezone: "Europe/London",
  region: "England",
  regionCode: "ENG",
} satisfies IncomingRequestCfPropertiesBase & IncomingRequestCfPropertiesGeographicInformation;
const LONDON = { country: "GB", region: "England", city: "London", colo: "LHR" };

describe("new-device detection", () => {
  it("the first sign-in from a device and place is new; the same pair again is not; another place or device is", async () => {
    const user = freshUser();
    const sessions = manager();
    const first = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, location: BERLIN });
    expect(first.newDevice).toBe(true);
    expect((await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, location: BERLIN })).newDevice).toBe(false);
    // A browser update is the same device; another data center in the same city is the same place.
    const updated = await signIn(sessions, user, { userAgent: FIREFOX_141_MAC, location: { ...BERLIN, colo: "FRA" } });
    expect(updated.newDevice).toBe(false);
    const travelling = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, location: PARIS });
    expect(travelling.newDevice).toBe(true);
    const phone = await signIn(sessions, user, { userAgent: SAFARI_IPHONE, location: BERLIN });
    expect(phone.newDevice).toBe(true);

    const alerts = await eventsOf(user, "session.new_device");
    expect(alerts.map((e) => e.sessionId)).toEqual([phone.sessionId, travelling.sessionId, first.sessionId]);
    const devices = (await stubOf(user).devices()).map((d) => [d.device, d.location?.city, d.sessions]);
    expect(devices.sort()).toEqual([
      // The latest name of the device is kept, and its three live sessions counted.
      ["Firefox 140 on macOS", "Paris", 1],
      ["Firefox 141 on macOS", "Berlin", 3],
      ["Safari 18 on iOS", "Berlin", 1],
    ]);
  });
  it(`keeps at most ${MAX_KNOWN_DEVICES} devices, dropping the least recently seen (User-Agents are the sender's word)`, async () => {
    const user = freshUser();
    const stub = stubOf(user);
    const start = objectNow() - 60_000;
    await runInDurableObject(stub, async (_o: UserSessions, state) => {
      for (let i = 0; i < MAX_KNOWN_DEVICES + 20; i++) {
        noteDevice(
          state.storage.sql,
          `agent-${i}|de|berlin|berlin`,
          `agent ${i}`,
          BERLIN,
          start + i,
          DEFAULT_RETENTION_MS,
        );
      }
    });
    const sessions = manager();
    await signIn(sessions, user, { userAgent: "made-up agent 9000", location: BERLIN });
    const devices = await stub.devices();
    expect(devices).toHaveLength(MAX_KNOWN_DEVICES);
    expect(devices[0]!.device).toBe("made-up agent 9000");
    expect(devices.some((d) => d.device === "agent 0")).toBe(false);
    expect(devices.at(-1)!.device).toBe(`agent ${21}`);
  });
});

describe("retention (90 days by default), pruned by the alarm", () => {
  it("prunes events, devices and receipts older than the retention; younger ones stay; a forgotten device is new again", async () => {
    const user = freshUser();
    const stub = stubOf(user);
    const t0 = Date.now();
    let now = t0;
    const sessions = manager({ clock: () => now });

    const old = await atObjectTime(t0, async () => {
      const s = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, location: BERLIN });
      const revoked = await sessions.revokeSession(s.sessionId);
      return { ...s, receiptId: revoked!.receiptId! };
    });
    // 30 days later: a lockout of another session, which must outlive the first events.
    now = t0 + 30 * DAY;
    await atObjectTime(now, async () => {
      await stub.recordLockout("f".repeat(64), "auth", 30);
    });
    expect((await stub.stats()).events).toBe(4); // signed in, new device, revoked, lockout

    const pruneAt = t0 + DEFAULT_RETENTION_MS + 1;
    await atObjectTime(pruneAt, async () => {
      // Before the alarm: expired rows are hidden from reads but still stored.
      expect((await stub.timeline()).events.map((e) => e.type)).toEqual(["ratelimit.lockout"]);
      expect(await stub.devices()).toEqual([]);
      expect((await stub.stats()).events).toBe(4);

      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect((await stub.stats()).events).toBe(1);
      const knownDevices = await runInDurableObject(
        stub,
        (_o: UserSessions, state) =>
          state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM known_devices").one().n,
      );
      expect(knownDevices).toBe(0);
      expect(await stub.receipt(old.receiptId)).toBeNull();
      expect((await stub.timeline()).events.map((e) => e.type)).toEqual(["ratelimit.lockout"]);

      // The device fell out of the window: signing in from it again is a new device.
      now = pruneAt;
      const again = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, location: BERLIN });
      expect(again.newDevice).toBe(true);
      expect((await eventsOf(user, "session.new_device")).map((e) => e.sessionId)).toEqual([again.sessionId]);
    });
  });

  it("a device seen again within the window is kept, and is not new", async () => {
    const user = freshUser();
    const stub = stubOf(user);
    const t0 = Date.now();
    let now = t0;
    const sessions = manager({ clock: () => now });
    await atObjectTime(t0, () => signIn(sessions, user, { userAgent: SAFARI_IPHONE, location: PARIS }));
    now = t0 + 60 * DAY;
    await atObjectTime(now, () => signIn(sessions, user, { userAgent: SAFARI_IPHONE, location: PARIS }));
    now = t0 + DEFAULT_RETENTION_MS + 1;
    await atObjectTime(now, async () => {
      await runDurableObjectAlarm(stub);
      expect(await stub.devices()).toEqual([
        { device: "Safari 18 on iOS", location: PARIS, firstSeenAt: t0, lastSeenAt: t0 + 60 * DAY, sessions: 0 },
      ]);
      expect((await signIn(sessions, user, { userAgent: SAFARI_IPHONE, location: PARIS })).newDevice).toBe(false);
    });
  });
});

describe("where a sign-in comes from", () => {
  it("the location source is injectable: the manager reads a request's place through it", () => {
    const request = new Request(ORIGIN, { headers: { "User-Agent": SAFARI_IPHONE, "CF-Connecting-IP": "192.0.2.5" } });
    expect(manager({ location: () => PARIS }).requestMeta(request)).toEqual({
      ip: "192.0.2.5",
      userAgent: SAFARI_IPHONE,
      location: PARIS,
    });
    // Offline there is no request.cf: no place rather than a made-up one.
    expect(manager().requestMeta(request).location).toBeUndefined();
    expect(edgeLocation(request)).toBeNull();
  });

  it("the development header gives each device its own place, and is refused off loopback", () => {
    const located = new Request(ORIGIN, { headers: { [DEV_LOCATION_HEADER]: "DE; Berlin ;Berlin;TXL" } });
    expect(devHeaderLocation(located)).toEqual(BERLIN);
    expect(devHeaderLocation(new Request(ORIGIN, { headers: { [DEV_LOCATION_HEADER]: "FR" } }))).toEqual({
      country: "FR",
      region: null,
      city: null,
      colo: null,
    });
    const vars = { SESSION_SECRET: "test-secret-0123456789-abcdefghijklmnop", GATEHOUSE_DEV_LOCATION_HEADER: "1" };
    expect(checkAuthEnvironment({ ...vars, AUTH_REDIRECT_URL: "http://localhost:8787/auth/callback" })).toEqual({
      ok: true,
    });
    expect(checkAuthEnvironment({ ...vars, AUTH_REDIRECT_URL: `${ORIGIN}/auth/callback` })).toEqual({
      ok: false,
      problems: [{ variable: "GATEHOUSE_DEV_LOCATION_HEADER", rule: "loopback_only" }],
    });
  });

  it("a sign-in whose requests carry the edge's request.cf (London) gets that place: the session, the device and the account page", async () => {
    // The auth routes (login, then callback) with the default location source (`request.cf`). The
    // provider is a stand-in (FakeIdentityClient, issued codes only): this project's deployed worker
    // talks to WorkOS, unreachable here (its outbound fetches reach the test receiver), and the place
    // never comes from the provider.
    const user = identity(freshUser());
    const provider = new FakeIdentityClient({ users: [user], synthetic: false });
    const app = Application.create(env, { providers: [new AuthServiceProvider({ identityClient: provider })] });
    // CF-Connecting-IP is the edge's header for the client address
    // (https://developers.cloudflare.com/fundamentals/reference/http-headers/).
    const headers = { "User-Agent": FIREFOX_140_MAC, "CF-Connecting-IP": freshAddress() };
    const start = await app.fetch(new Request(`${ORIGIN}/auth/login`, { headers, cf: LONDON_EDGE }));
    expect(start.status).toBe(302);
    const flowCookie = start.headers.getSetCookie()[0]!.split(";")[0]!;
    const authorize = new URL(start.headers.get("Location")!);
    const code = provider.issueCode(user.id, { codeChallenge: authorize.searchParams.get("code_challenge")! });
    const callback = await app.fetch(
      new Request(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
        headers: { ...headers, Cookie: flowCookie },
        cf: LONDON_EDGE,
      }),
    );
    expect(callback.status).toBe(302);
    const session = callback.headers
      .getSetCookie()
      .map((line) => line.split(";")[0]!)
      .find((pair) => pair.startsWith("__Host-gh_session="))!;

    const [device] = await stubOf(user.id).devices();
    expect(device).toMatchObject({ device: "Firefox 140 on macOS", location: LONDON, sessions: 1 });
    expect((await eventsOf(user.id, "session.new_device"))[0]?.location).toEqual(LONDON);
    // The deployed worker's account page, called the way the platform calls the worker (`exports.default`).
    const page = await exports.default.fetch(`${ORIGIN}/account/sessions`, {
      headers: { ...headers, Cookie: session, Accept: "application/json" },
    });
    expect(page.status).toBe(200);
    const { sessions } = (await page.json()) as { sessions: { location: unknown; place: string }[] };
    expect(sessions).toEqual([expect.objectContaining({ location: LONDON, place: "London, England, GB (LHR)" })]);
  });

  it("the deployed worker gets request.cf as the platform hands a request over (exports.default.fetch): a signed-out cookie used again from London is told with that place", async () => {
    const user = freshUser();
    const sessions = manager();
    // Signed out in Paris ten minutes ago: past the grace left to that browser's own last requests.
    const old = await atObjectTime(Date.now() - 10 * 60_000, async () => {
      const signedIn = await signIn(sessions, user, { location: PARIS });
      await sessions.revokeSession(signedIn.sessionId);
      return signedIn;
    });
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/account/sessions`, {
        headers: { Cookie: old.cookie, Accept: "application/json", "CF-Connecting-IP": freshAddress() },
        cf: LONDON_EDGE,
      }),
    );
    expect(res.status).toBe(401);
    expect((await eventsOf(user, "session.refused")).map((e) => e.location)).toEqual([LONDON]);
  });
});
