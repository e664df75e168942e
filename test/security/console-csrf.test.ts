/**
 * Issue 25 item 4 (low): the break-glass console's forms kept the gate's anonymous CSRF token
 * (bound to no session) after the console session opened. Now every token inside a break-glass
 * session is bound to that session: the anonymous one, and one bound to another operator's
 * session, are refused for state changes there; the bound one works, and ends with the session.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { cookieHeader, cookiesFrom, ORIGIN, send } from "./helpers/world";

const CSRF_COOKIE = "__Host-gh_csrf";
const CONSOLE_COOKIE = "__Secure-gh_console";

/** A browser on the console: its cookies, and the `_csrf` values of the last page it read. */
class Operator {
  readonly jar: Record<string, string> = {};

  async page(path: string): Promise<{ html: string; tokens: string[] }> {
    const res = await send(path, { headers: { Cookie: cookieHeader(this.jar), Accept: "text/html" } });
    cookiesFrom(res, this.jar);
    expect(res.status).toBe(200);
    const html = await res.text();
    return { html, tokens: [...html.matchAll(/name="_csrf" value="([^"]+)"/g)].map((m) => m[1]!) };
  }

  async post(path: string, csrf: string, fields: Record<string, string> = {}): Promise<Response> {
    const res = await send(path, {
      method: "POST",
      headers: {
        Cookie: cookieHeader(this.jar),
        Accept: "text/html",
        Origin: ORIGIN,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
    cookiesFrom(res, this.jar);
    return res;
  }

  /** Reads the gate's anonymous token and opens a break-glass session with it. */
  async breakGlass(): Promise<string> {
    const gate = await this.page("/admin");
    expect(gate.html).toContain("Admin token");
    const anonymous = gate.tokens[0]!;
    const opened = await this.post("/admin/console/break-glass", anonymous, { token: env.ADMIN_API_TOKEN });
    expect(opened.status).toBe(303);
    expect(this.jar[CONSOLE_COOKIE]).toBeDefined();
    return anonymous;
  }
}

async function refusedForCsrf(res: Response): Promise<void> {
  expect(res.status).toBe(403);
  expect(await res.text()).toContain("csrf_failed");
}

describe("issue 25 item 4: the break-glass console's CSRF tokens", () => {
  it("refuses the gate's anonymous token once the console session is open", async () => {
    const operator = new Operator();
    const anonymous = await operator.breakGlass();
    // The browser still holds the anonymous token in its CSRF cookie: it no longer counts.
    expect(operator.jar[CSRF_COOKIE]).toBe(anonymous);
    await refusedForCsrf(await operator.post("/admin/console/sign-out", anonymous));
    await refusedForCsrf(
      await operator.post("/admin/console/organizations/end", anonymous, { organizationId: "org_x" }),
    );
    // Nothing was done: the session is still open.
    expect((await operator.page("/admin")).html).toContain("Break-glass session");
  });

  it("puts a token bound to the session in every form of the console, and that token works", async () => {
    const operator = new Operator();
    const anonymous = await operator.breakGlass();
    const home = await operator.page("/admin");
    expect(home.html).toContain("Break-glass session");
    expect(home.tokens.length).toBeGreaterThan(0);
    const bound = operator.jar[CSRF_COOKIE]!;
    expect(bound).not.toBe(anonymous);
    expect(new Set(home.tokens)).toEqual(new Set([bound]));

    const closed = await operator.post("/admin/console/sign-out", bound);
    expect(closed.status).toBe(303);
    expect(operator.jar[CONSOLE_COOKIE]).toBeUndefined();
    // Bound to a session that has ended, the token opens nothing either.
    await refusedForCsrf(await operator.post("/admin/console/break-glass", bound, { token: env.ADMIN_API_TOKEN }));
  });

  it("refuses a token bound to another operator's break-glass session", async () => {
    const alice = new Operator();
    const bob = new Operator();
    await alice.breakGlass();
    await bob.breakGlass();
    await alice.page("/admin");
    await bob.page("/admin");
    const alicesToken = alice.jar[CSRF_COOKIE]!;
    // Bob's console cookie with Alice's token (cookie and field): not his session's token.
    const mixed = new Operator();
    Object.assign(mixed.jar, { [CONSOLE_COOKIE]: bob.jar[CONSOLE_COOKIE]!, [CSRF_COOKIE]: alicesToken });
    await refusedForCsrf(await mixed.post("/admin/console/sign-out", alicesToken));
    expect((await bob.page("/admin")).html).toContain("Break-glass session");
  });
});
