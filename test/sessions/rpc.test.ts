import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { revokedMarkOwner } from "../support/kv-records";
import { freshUser, manager, newSession } from "./helpers";

describe("AuthService (RPC entrypoint)", () => {
  it("resolves a user and a session from a Cookie header", async () => {
    const user = freshUser();
    const s = await newSession(manager(), user);
    const service = exports.AuthService;
    const resolved = await service.resolveUser(s.cookie);
    expect(resolved?.id).toBe(user);
    const session = await service.resolveSession(`other=1; ${s.cookie}`);
    expect(session?.sessionId).toBe(s.sessionId);
    expect(session?.expiresAt).toBeGreaterThan(Date.now());
    expect(await service.resolveUser(null)).toBeNull();
    expect(await service.resolveUser("__Host-gh_session=forged.value")).toBeNull();
  });

  it("lists and revokes sessions", async () => {
    const user = freshUser();
    const a = await newSession(manager(), user);
    const b = await newSession(manager(), user);
    const service = exports.AuthService;
    expect((await service.listSessions(user)).map((s) => s.id).sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(await service.revokeSession(a.sessionId)).toMatchObject({ revoked: 1 });
    expect(await service.resolveUser(a.cookie)).toBeNull();
    expect(await service.revokeUser(user)).toMatchObject({ revoked: 1 });
    expect(await service.resolveUser(b.cookie)).toBeNull();
    expect(await revokedMarkOwner(env.SESSIONS, b.sessionId)).toBe(user);
  });

  it("rejects bad arguments with a clear error", async () => {
    const service = exports.AuthService;
    await expect(service.revokeSession("nope")).rejects.toThrow(/64 lowercase hex/);
    await expect(service.listSessions("bad id")).rejects.toThrow(/not a valid user id/);
  });
});

describe("GET /api/me", () => {
  it("answers the signed-in user as JSON, and 401 JSON without a session", async () => {
    const user = freshUser();
    const s = await newSession(manager(), user);
    const res = await exports.default.fetch("https://auth.example.com/api/me", { headers: { Cookie: s.cookie } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sessionId: s.sessionId, user: { id: user } });
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const anonymous = await exports.default.fetch("https://auth.example.com/api/me", {
      headers: { Accept: "application/json" },
    });
    expect(anonymous.status).toBe(401);
  });
});
