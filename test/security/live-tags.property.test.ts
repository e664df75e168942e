/**
 * Issue 25 proof: whatever connection id (`?_pk=`), query and headers a client sends with its
 * upgrade, the tags and the audience its socket gets are exactly those the worker chose for the
 * credential it verified: the object's own connection id, the session's tag, and the record only
 * for the user's own cookie from this worker's own origin. Read from the runtime's own record of
 * the socket (`getTags`, the hibernation attachment), not from our code's view of it.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freshUser, manager, newSession, ORIGIN } from "../sessions/helpers";

const APP = "https://app.example.com";
/** The spellings an attacker tries, and anything else. */
const id = fc.oneof(
  fc.constantFrom("record", "RECORD", "record-x", "pending", "s:", "", "x".repeat(64), "live:record", "__proto__"),
  fc.string({ maxLength: 80 }),
);
const query = fc.dictionary(
  fc.constantFrom("join", "_pk", "record", "tag", "tags", "session", "room", "party", "ticket", "id"),
  fc.oneof(id, fc.constant("ticket")),
  { maxKeys: 4 },
);
const headers = fc.dictionary(
  fc.constantFrom(
    "x-gatehouse-record",
    "x-gatehouse-session",
    "x-gatehouse-ticket",
    "x-gatehouse-joined",
    "x-partykit-room",
    "x-partykit-props",
  ),
  fc.constantFrom("1", "record", "f".repeat(64), '{"sessionId":"x","record":true}', "user_other"),
  { maxKeys: 3 },
);

describe("a live socket's tags come only from the verified credential", () => {
  it("for any _pk, query and header the client sends", async () => {
    const sessions = manager();
    const user = freshUser();
    const { sessionId, cookie } = await newSession(sessions, user);
    const stub = env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(user));
    await fc.assert(
      fc.asyncProperty(
        id,
        query,
        headers,
        fc.constantFrom("cookie", "ticket"),
        fc.constantFrom(ORIGIN, APP),
        async (pk, params, extra, via, origin) => {
          const search = new URLSearchParams({ ...params, _pk: pk });
          if (via === "cookie") search.delete("join"); // `?join=ticket` chooses the ticket path
          const ticket = via === "ticket" ? (await sessions.liveTicket(cookie))!.ticket : null;
          const res = await exports.default.fetch(`${ORIGIN}/parties/user-sessions/${user}?${search}`, {
            headers: {
              ...extra,
              Upgrade: "websocket",
              Origin: origin,
              Cookie: cookie,
              "CF-Connecting-IP": "198.51.100.7",
              ...(ticket ? { "Sec-WebSocket-Protocol": `gatehouse-live, gatehouse-ticket.${ticket}` } : {}),
            },
          });
          expect(res.status).toBe(101);
          res.webSocket!.accept();
          const seen = await runInDurableObject(stub, (_instance, state) =>
            state.getWebSockets().map((ws) => ({ tags: state.getTags(ws), state: ws.deserializeAttachment() })),
          );
          res.webSocket!.close(1000, "done");
          const open = seen.filter((s) => s.state !== null);
          expect(open).toHaveLength(1);
          const [socket] = open as [{ tags: string[]; state: unknown }];
          // partyserver's first tag is the connection id: the object's, never the client's.
          expect(socket.tags).toHaveLength(2);
          expect(socket.tags[0]).toMatch(/^c-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
          expect(socket.tags[1]).toBe(`s:${sessionId}`);
          expect((socket.state as { __user?: unknown }).__user ?? socket.state).toMatchObject({
            sessionId,
            via,
            record: via === "cookie" && origin === ORIGIN,
          });
          // Wait until the closed socket is gone, so the next run sees only its own.
          await runInDurableObject(stub, async (_instance, state) => {
            for (const ws of state.getWebSockets()) ws.close(1000, "done");
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
