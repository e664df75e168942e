/**
 * Issue 25, replayed as an outsider would, against the running workers (`wrangler dev` of the auth
 * worker and the example consumer, started by the e2e project's global setup) with real sockets:
 * Node's WebSocket client, which sends the Origin, Cookie and subprotocols we choose. What an
 * attacker gets is asserted, never our code's view of it: a socket that opens, any frame it hears,
 * the Durable Object files on disk, the status of the route. Runs in the e2e project (one stack).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { Person } from "../../../scripts/load/client.ts";
import { GLOBEX_ID, GRACE_ID, MARGARET_ID } from "../../../scripts/local-idp/demo-data.ts";
import { WindowTally } from "../../e2e/support/rate-limit.ts";

const stack = inject("e2e");
const channel = (userId: string, query = "") =>
  `${stack.authUrl.replace(/^http/, "ws")}/parties/user-sessions/${encodeURIComponent(userId)}${query}`;

interface Attempt {
  label: string;
  /** Whether the handshake completed (a 101). */
  opened: boolean;
  frames: string[];
  closed: Promise<void>;
  socket: WebSocket;
}

/** Opens a socket as any client could, and records what it gets; resolves once the handshake is decided. */
function attempt(label: string, url: string, headers: Record<string, string>, protocols: string[] = []) {
  const socket = new WebSocket(url, { protocols, headers } as unknown as string[]);
  const frames: string[] = [];
  socket.addEventListener("message", (e) => frames.push(String(e.data)));
  const closed = new Promise<void>((resolve) => socket.addEventListener("close", () => resolve()));
  return new Promise<Attempt>((resolve) => {
    socket.addEventListener("open", () => resolve({ label, opened: true, frames, closed, socket }));
    socket.addEventListener("error", () => resolve({ label, opened: false, frames, closed, socket }));
  });
}

/** The spellings of finding 1: what partyserver would have made a tag, and the tag names the object uses. */
const SPELLINGS = ["record", "RECORD", "record-x", "pending", "s:", "live:record", "", "x".repeat(64)];

/** Every `.sqlite` file of the auth worker's UserSessions objects on disk. */
function userSessionFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/UserSessions/.test(path) && entry.endsWith(".sqlite")) found.push(path);
    }
  };
  walk(stack.authStateDir);
  return found.sort();
}

/** Ends every session of `userId` through the admin API (the e2e flows share the demo people). */
async function revokeAll(userId: string): Promise<Response> {
  return fetch(`${stack.authUrl}/admin/users/${userId}/sessions/revoke`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${stack.adminToken}`,
      Accept: "application/json",
      "CF-Connecting-IP": "2001:db8:25:9::1",
    },
  });
}

describe("issue 25: the live channel against an outsider (wrangler dev, real sockets)", () => {
  // The other browser flows count these people's sessions: leave none behind.
  afterAll(async () => {
    for (const user of [MARGARET_ID, GRACE_ID]) expect((await revokeAll(user)).status).toBe(200);
  });

  it("finding 1 and 3: no socket without the user's session hears anything, before or after a revoke-all", async () => {
    const victim = await Person.signedIn(25_001, stack.authUrl, stack.idpUrl, MARGARET_ID);
    const mallory = await Person.signedIn(25_002, stack.authUrl, stack.idpUrl, GRACE_ID, GLOBEX_ID);
    const address = { "CF-Connecting-IP": "2001:db8:25::1" };
    // Mallory's own ticket, minted by the consumer for her session (what its page would carry).
    const minted = await fetch(`${stack.consumerUrl}/__gatehouse/live-ticket`, {
      method: "POST",
      headers: { Cookie: mallory.cookie, "X-Gatehouse-Live": "1", ...address },
    });
    expect(minted.status).toBe(200);
    const { ticket: mallorysTicket } = (await minted.json()) as { ticket: string };

    // The control: Margaret's own tab (her cookie, the auth worker's own page) is in. (wrangler dev
    // keys every upgrade by the loopback address, and Node's WebSocket client repeats a refused
    // handshake once: the attempts below count twice against 127.0.0.1's live budget.)
    const own = await attempt("own", channel(MARGARET_ID), {
      Origin: stack.authUrl,
      Cookie: victim.cookie,
      ...address,
    });
    expect(own.opened).toBe(true);

    const attempts: Attempt[] = [];
    for (const origin of [stack.authUrl, stack.consumerUrl]) {
      for (const pk of SPELLINGS) {
        for (const query of [`?_pk=${encodeURIComponent(pk)}`, `?join=ticket&_pk=${encodeURIComponent(pk)}`]) {
          attempts.push(
            await attempt(`${origin} ${query}`, channel(MARGARET_ID, query), { Origin: origin, ...address }),
          );
        }
      }
      // Headers the object reads, and partyserver's own, sent by the client.
      attempts.push(
        await attempt(`${origin} forged headers`, channel(MARGARET_ID, "?_pk=record"), {
          Origin: origin,
          "x-gatehouse-record": "1",
          "x-gatehouse-session": "f".repeat(64),
          "x-gatehouse-ticket": "A".repeat(43),
          "x-partykit-room": MARGARET_ID,
          ...address,
        }),
      );
      // Mallory's own cookie, and her own valid ticket, on Margaret's channel.
      attempts.push(
        await attempt(`${origin} another user's cookie`, channel(MARGARET_ID, "?_pk=record"), {
          Origin: origin,
          Cookie: mallory.cookie,
          ...address,
        }),
      );
      attempts.push(
        await attempt(
          `${origin} another user's ticket`,
          channel(MARGARET_ID, "?_pk=record"),
          { Origin: origin, ...address },
          ["gatehouse-live", `gatehouse-ticket.${mallorysTicket}`],
        ),
      );
    }
    expect(attempts.filter((a) => a.opened).map((a) => a.label)).toEqual([]);

    const heard = (type: string) =>
      new Promise<void>((resolve) => {
        const check = () => own.frames.some((f) => f.includes(`"type":"${type}"`)) && resolve();
        check();
        own.socket.addEventListener("message", check);
      });
    // Margaret signs in somewhere else: her own tab hears the sign-in on her record.
    await Person.signedIn(25_003, stack.authUrl, stack.idpUrl, MARGARET_ID);
    await heard("timeline.appended");
    expect((await revokeAll(MARGARET_ID)).status).toBe(200);
    await heard("session.revoked");
    await own.closed;
    // Everything the channel sent has been sent (the revocation closes the last socket): nobody else heard any of it.
    for (const a of attempts) expect(a.frames, a.label).toEqual([]);
  });

  it("finding 2: anonymous upgrades to made-up users are refused and create no object on disk", async () => {
    // The glob sees the objects that exist (the signed-in users' of this run), so an added one would show.
    await Person.signedIn(25_004, stack.authUrl, stack.idpUrl, MARGARET_ID);
    const before = userSessionFiles();
    expect(before.length).toBeGreaterThan(0);
    const address = { "CF-Connecting-IP": "2001:db8:25:2::1" };
    for (let i = 0; i < 5; i++) {
      const made = `user_01MADEUP${String(i).padStart(17, "0")}`;
      for (const query of ["", "?join=ticket", "?join=ticket&_pk=record"]) {
        const a = await attempt(`made-up ${i} ${query}`, channel(made, query), { Origin: stack.authUrl, ...address });
        expect(a.opened, a.label).toBe(false);
      }
    }
    expect(userSessionFiles()).toEqual(before);
  });

  it("finding 2: /parties/* answers 429 past its limit for one address", async () => {
    const address = { "CF-Connecting-IP": "2001:db8:25:3::1" };
    const LIVE = { limit: 600, window: 60 }; // the live family, per address (README "Rate limits")
    const send = async () => {
      const res = await fetch(`${stack.authUrl}/parties/user-sessions/${MARGARET_ID}`, {
        headers: { Accept: "application/json", ...address },
      });
      await res.arrayBuffer();
      return res;
    };
    // A limit of 600 a minute: requests go ten at a time, so reaching it needs no fast machine. A
    // fixed window may end mid-way (the count starts again): the limiter's own headers say so
    // (WindowTally), and the requests go on until it refuses within one window. Bounded by counts.
    const tally = new WindowTally();
    let refused: Response | null = null;
    for (let round = 0; round < 3 && !refused; round++) {
      let limited: Response | null = null;
      for (let sent = 0; sent < 3 * LIVE.limit && !limited; sent += 10) {
        const burst = await Promise.all(Array.from({ length: 10 }, send));
        const refusals: { res: Response; seenIn: number }[] = [];
        for (const res of burst) {
          const admitted = res.status !== 429;
          if (admitted) expect(res.status).toBe(426); // not an upgrade: counted, then refused by the route
          const seenIn = tally.observe(res.headers, admitted);
          if (!admitted) refusals.push({ res, seenIn });
        }
        // A refusal counts in the newest window (one of a window that ended during the burst does not).
        limited = refusals.find((r) => r.seenIn === tally.windows)?.res ?? null;
      }
      expect(limited?.status).toBe(429);
      expect(tally.admitted).toBe(LIVE.limit); // refused past the limit, not before, within one window
      expect(tally.policy).toEqual({ name: "auth-live", limit: LIVE.limit, windowSeconds: LIVE.window });
      // Refused until its window ends: the next request in that window too (should the window have
      // ended in between, the new one admits it, and the limit is reached again).
      const spentIn = tally.windows;
      const late = await send();
      const seenIn = tally.observe(late.headers, late.status !== 429);
      if (late.status === 429) {
        expect(seenIn).toBe(spentIn);
        expect(Number(late.headers.get("Retry-After"))).toBeGreaterThan(0);
        refused = late;
      } else {
        expect({ status: late.status, seenIn }).toEqual({ status: 426, seenIn: spentIn + 1 });
      }
    }
    expect(refused?.status).toBe(429);
  }, 180_000); // bounded by counts (at most three rounds of 1,800 requests); a busy machine only makes it slower
});
