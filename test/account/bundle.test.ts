import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, openPage, signIn } from "./helpers";

// The checked-in script and a fresh build of it (scripts/build-live-script.mjs), made Node-side
// by test/node/account-setup.ts; the browser tests (test/e2e) run it for real.
const bundle = env.ACCOUNT_BUNDLE;

describe("the live script (scripts/build-live-script.mjs → account/client/live-script.ts)", () => {
  it("is what a fresh build makes (run npm run build:live after changing the browser code)", () => {
    expect(bundle.fresh).toBe(true);
  });

  it("is served by the worker, without a session, at the path the account page loads it from", async () => {
    const page = await openPage(await signIn(`user_bundle_${Date.now().toString(36)}`));
    const src = /<script type="module" src="([^"]+)">/.exec(page.html)?.[1];
    expect(src).toBe("/account/live.js");
    const res = await call(src!);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(await res.text()).toBe(bundle.code);
  });

  it("is one self-contained ES module that parses (node --check)", () => {
    expect(bundle.syntaxOk).toBe(true);
    // partysocket is bundled in: no import of any module is left to resolve
    // (esbuild writes a kept import as `import{…}from"x"`, `import"x"` or `import("x")`).
    expect(bundle.code).not.toMatch(/\bfrom"|\bimport"|\bimport\(/);
    expect(bundle.code).not.toContain("cloudflare:");
    expect(bundle.code.length).toBeLessThan(64 * 1024);
  });

  it("joins the user-sessions party and handles the session messages", () => {
    for (const text of [
      "user-sessions",
      "session.revoked",
      "sessions.changed",
      "You were signed out",
      "Your account was deactivated in your organization's directory",
      "user_deactivated",
      "timeline.appended",
      "/auth/login?return_to=",
      "/account/sessions",
      "/account/activity",
      "application/json",
    ]) {
      expect(bundle.code).toContain(text);
    }
    expect(bundle.code).toMatch(/\b4001\b/);
  });

  it("contains no secret and no server code", () => {
    expect(bundle.leaks).toEqual([]);
    for (const name of ["SESSION_SECRET", "ADMIN_API_TOKEN", "IDENTITY_API_KEY", env.SESSION_SECRET]) {
      expect(bundle.code).not.toContain(name);
    }
    // Strings that only server modules carry (session manager, session object, live route, HMAC).
    for (const serverOnly of ["x-gatehouse-session", "Sessions are unavailable", "upgrade_required", "HMAC"]) {
      expect(bundle.code).not.toContain(serverOnly);
    }
  });

  it("is served with no-cache and an ETag, so browsers revalidate it after each deploy (304 meanwhile)", async () => {
    const res = await call("/account/live.js");
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const etag = res.headers.get("ETag");
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await call("/account/live.js", { headers: { "If-None-Match": `W/${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await call("/account/live.js", { headers: { "If-None-Match": '"0000"' } });
    expect(other.status).toBe(200);
  });
});
