/**
 * A plain worker's event stream (`sessionEventStream`, the fixture's `/events`) ends when its
 * session does: a notice naming the session writes `session.revoked` (or
 * `session.device_proof_required`) and ends it; a notice for another session, or another user, does
 * not; no session is 401; an already revoked session ends at once; a client leaving closes the
 * registry's watch socket.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshUser, newSession, notice, ORIGIN, type TestSession, withTimeout } from "./helpers";

interface Reader {
  /** Text read so far. */
  text(): string;
  /** Reads until `needle` appears (or the stream ends); resolves the text so far. */
  until(needle: string): Promise<string>;
  /** Reads to the end. */
  rest(): Promise<string>;
  cancel(): Promise<void>;
}

async function openStream(session: TestSession | null): Promise<{ res: Response; reader: Reader }> {
  const res = await exports.default.fetch(
    new Request(`${ORIGIN}/events`, { headers: session ? { Cookie: session.cookie } : {} }),
  );
  const body = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let done = false;
  const more = async () => {
    const chunk = await body.read();
    if (chunk.done) done = true;
    else text += decoder.decode(chunk.value, { stream: true });
  };
  const reader: Reader = {
    text: () => text,
    until: async (needle) => {
      while (!done && !text.includes(needle)) await more();
      return text;
    },
    rest: async () => {
      while (!done) await more();
      return text;
    },
    cancel: () => body.cancel(),
  };
  return { res, reader };
}

const watching = (userId: string) => env.GATEHOUSE_CONNECTIONS.getByName(userId).watching();

describe("sessionEventStream", () => {
  it("answers an event stream and ends it with session.revoked when its session is revoked", async () => {
    const u = freshUser();
    const [s1, s2] = [await newSession(u), await newSession(u)];
    const one = await openStream(s1);
    const two = await openStream(s2);
    expect(one.res.status).toBe(200);
    expect(one.res.headers.get("Content-Type")).toBe("text/event-stream; charset=utf-8");
    expect(one.res.headers.get("Cache-Control")).toBe("no-store");
    expect(await withTimeout(one.reader.until("\n\n"))).toBe(
      `event: hello\ndata: ${JSON.stringify({ session: s1.sessionId })}\n\n`,
    );
    await withTimeout(two.reader.until("\n\n"));
    expect(await watching(u)).toEqual([`gh:s:${s1.sessionId}`, `gh:s:${s2.sessionId}`].sort());

    // Another user's registry naming s1 closes nothing; s2's notice leaves s1's stream open.
    expect(await env.APP_RECEIVER.sessionsEnded(notice(freshUser(), [s1.sessionId]))).toEqual({ closed: 0 });
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s2.sessionId]))).toEqual({ closed: 1 });
    expect(await withTimeout(two.reader.rest())).toContain(
      'event: session.revoked\ndata: {"code":4001,"reason":"session revoked"}\n\n',
    );
    expect(await watching(u)).toEqual([`gh:s:${s1.sessionId}`]);
    expect(one.reader.text()).not.toContain("session.revoked");

    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s1.sessionId]))).toEqual({ closed: 1 });
    const all = await withTimeout(one.reader.rest());
    expect(all.endsWith('event: session.revoked\ndata: {"code":4001,"reason":"session revoked"}\n\n')).toBe(true);
    expect(await watching(u)).toEqual([]);
  });

  it("writes session.device_proof_required for a missing device proof", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const stream = await openStream(s);
    await withTimeout(stream.reader.until("\n\n"));
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId], "device_proof_missing"))).toEqual({
      closed: 1,
    });
    expect(await withTimeout(stream.reader.rest())).toContain(
      'event: session.device_proof_required\ndata: {"code":4004,"reason":"device proof required"}\n\n',
    );
  });

  it("answers 401 without a session, and opens no watch socket", async () => {
    const { res } = await openStream(null);
    expect(res.status).toBe(401);
    const bogus = await exports.default.fetch(
      new Request(`${ORIGIN}/events`, { headers: { Cookie: "app_session=nope" } }),
    );
    expect(bogus.status).toBe(401);
  });

  it("ends at once with session.revoked when the session's revocation arrived first", async () => {
    const u = freshUser();
    const s = await newSession(u);
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId]))).toEqual({ closed: 0 });
    const stream = await openStream(s);
    expect(stream.res.status).toBe(200);
    expect(await withTimeout(stream.reader.rest())).toContain("event: session.revoked\n");
    expect(await watching(u)).toEqual([]);
  });

  it("closes the registry's watch socket when the client leaves", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const stream = await openStream(s);
    await withTimeout(stream.reader.until("\n\n"));
    expect(await watching(u)).toEqual([`gh:s:${s.sessionId}`]);
    await stream.reader.cancel();
    await withTimeout(
      (async () => {
        while ((await watching(u)).length > 0) await new Promise((r) => setTimeout(r, 10));
      })(),
      2_000,
      "watch socket close",
    );
    // Nothing left to close: the notice counts none.
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId]))).toEqual({ closed: 0 });
  });
});
