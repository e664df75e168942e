/**
 * Issue 14 finding 5: anyone can send a person to `/auth/callback?error=…&error_description=…`.
 * The page shows fixed words for known provider error codes and a generic sentence otherwise;
 * none of the query's text reaches the page or the JSON body.
 */
import { describe, expect, it } from "vitest";
import { send } from "./helpers/world";

const ATTACK = "Your account is locked. Call +1 555 0100 and read us your password";

describe("finding 5: the callback's error page", () => {
  it.each([
    ["access_denied", "The sign-in was cancelled or not allowed."],
    ["temporarily_unavailable", "The identity provider is busy right now."],
    ["login_required", "The identity provider needs you to sign in again."],
    [ATTACK, "The identity provider did not sign you in."],
    ["__proto__", "The identity provider did not sign you in."],
  ])("error=%s shows fixed words, never the description", async (code, words) => {
    const query = new URLSearchParams({ error: code, error_description: ATTACK });
    for (const accept of ["text/html", "application/json"]) {
      const res = await send(`/auth/callback?${query}`, { headers: { Accept: accept } });
      expect(res.status).toBe(400);
      const body = await res.text();
      expect(body).toContain(words);
      expect(body).not.toContain("Call +1 555");
      expect(body).not.toContain("locked");
      expect(res.headers.get("Location")).toBeNull();
    }
  });

  it("an empty error is still the generic page", async () => {
    const res = await send("/auth/callback?error=&error_description=hello%20there");
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain("hello there");
  });
});
