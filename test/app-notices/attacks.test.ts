/**
 * Attacks on the auth side of app connections (issue 31 review): an app that hangs or fails never
 * holds up the user's object nor another user's notices; a failure's log line carries neither the
 * app's error message nor a session id; the `apps` setting refuses prototype keys and keeps the
 * bindings it checked.
 */
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkApps } from "../../durable-objects/user-sessions/app-connections";
import { delivered, eventsOf, eventually, fresh, manager, outbox, receiver, signIn } from "./helpers";

let now = 0;
beforeEach(() => {
  now = Date.now() + 24 * 3600 * 1000;
  setObjectClock(() => now);
});
afterEach(() => setObjectClock(null));

describe("an app that hangs or fails", () => {
  it("holds up neither the user's object nor another user's notices", async () => {
    const [slow, other] = [fresh("user"), fresh("user")];
    const sessions = manager();
    const [a, b] = [await signIn(sessions, slow), await signIn(sessions, slow)];
    const c = await signIn(sessions, other);
    await receiver.hold(slow);
    try {
      await sessions.revokeSession(a.sessionId);
      await eventually(async () => ((await receiver.received(slow)).length === 1 ? true : null), "the held call");
      // The object still revokes, records and answers while its first call waits at the app.
      expect(await sessions.revokeSession(b.sessionId)).not.toBeNull();
      expect(await eventsOf(slow, "session.revoked")).toHaveLength(2);
      expect(await sessions.resolveCookieHeader(b.cookie)).toBeNull();
      // Another user's object is not held up at all.
      await sessions.revokeSession(c.sessionId);
      expect((await delivered(other)).map((n) => n.sessionIds)).toEqual([[c.sessionId]]);
    } finally {
      await receiver.release(slow);
    }
    expect((await delivered(slow)).map((n) => n.sessionIds).sort()).toEqual([[a.sessionId], [b.sessionId]].sort());
  });

  it("is logged by the app's name and the error's name: no message from the app, no session id", async () => {
    const user = fresh("user");
    const sessions = manager();
    const a = await signIn(sessions, user);
    await receiver.fail(user, 1);
    const logs: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logs.push(args.map(String).join(" "));
    try {
      expect(await sessions.revokeSession(a.sessionId)).not.toBeNull();
      await eventually(async () => ((await outbox(user))[0]?.attempts === 1 ? true : null), "the failed attempt");
    } finally {
      console.error = original;
    }
    const line = logs.find((l) => l.includes("app receiver"));
    expect(line).toMatch(/^gatehouse: app receiver \(binding APP_RECEIVER\) did not take a revocation notice: \w+$/);
    expect(logs.join("\n")).not.toContain(a.sessionId);
    expect(logs.join("\n")).not.toContain("told to fail");
    expect(logs.join("\n")).not.toContain(user);
  });
});

describe("the apps setting", () => {
  it("refuses prototype keys and keeps the binding it checked", () => {
    expect(() => checkApps(JSON.parse('{"__proto__": {"binding": "APP_X"}}'), "apps")).toThrow(
      /"__proto__" is not an app name/,
    );
    // A name that is also an Object.prototype member is an own key like any other.
    const apps = checkApps({ constructor: { binding: "APP_C" } }, "apps");
    expect(Object.keys(apps)).toEqual(["constructor"]);
    expect(apps.constructor).toEqual({ binding: "APP_C" });
    // A getter answering another binding after the check does not get it in.
    let reads = 0;
    const sly = {
      get binding() {
        return ++reads === 1 ? "APP_SLY" : "SESSIONS";
      },
    };
    expect(checkApps({ sly }, "apps", ["SESSIONS"])).toEqual({ sly: { binding: "APP_SLY" } });
  });
});
