import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openPage, signIn } from "./helpers";

// The bundle was built Node-side by scripts/build-client.mjs (test/node/account-setup.ts).
// A real browser run of it is a later issue; here we check what it is made of.
const bundle = env.ACCOUNT_BUNDLE;

describe("the live script bundle (scripts/build-client.mjs)", () => {
  it("is built at the path the account page loads it from", async () => {
    expect(bundle.files).toEqual(["account/live.js"]);
    const page = await openPage(await signIn(`user_bundle_${Date.now().toString(36)}`));
    const src = /<script type="module" src="([^"]+)">/.exec(page.html)?.[1];
    expect(src).toBe(`/${bundle.files[0]}`);
  });

  it("is one self-contained ES module that parses (node --check)", () => {
    expect(bundle.syntaxOk).toBe(true);
    // partysocket and superjson are bundled in: no import of any module is left to resolve
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
      "/auth/login?return_to=%2Faccount%2Fsessions",
      "/account/sessions",
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

  it("is served with no-cache, so browsers revalidate it by ETag after each deploy", () => {
    expect(bundle.headers).toBe("/account/live.js\n  Cache-Control: no-cache\n  X-Content-Type-Options: nosniff\n");
  });
});
