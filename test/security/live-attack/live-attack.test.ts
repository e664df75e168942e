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
    // The live family: 600 per 60 s per address (README "Rate limits"). A fixed window may turn while
    // this runs, so at most two windows' worth (1,200) pass before the first 429.
    let admitted = 0;
    let refused: Response | null = null;
    while (!refused && admitted <= 1_200) {
      const res = await fetch(`${stack.authUrl}/parties/user-sessions/${MARGARET_ID}`, {
        headers: { Accept: "application/json", ...address },
      });
      await res.arrayBuffer();
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(426); // not an upgrade: counted, then refused by the route
        admitted++;
      }
    }
    expect(refused?.status).toBe(429);
    expect(admitted).toBeGreaterThanOrEqual(600);
    expect(admitted).toBeLessThanOrEqual(1_200);
    const late = await fetch(`${stack.authUrl}/parties/user-sessions/${MARGARET_ID}`, {
      headers: { Accept: "application/json", ...address },
    });
    expect(late.status).toBe(429);
    expect(Number(late.headers.get("Retry-After"))).toBeGreaterThan(0);
  }, 180_000); // bounded by count (at most 1,201 requests); a busy machine only makes it slower
});
