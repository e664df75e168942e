/**
 * Issue 18: the consumer's pages carry the session's live channel (`ServiceAuthMiddleware`'s
 * `live` option): the page gets the auth worker's /live.js with a ticket minted over RPC in a data
 * attribute (never in a URL), its CSP lets exactly that script and socket in, and the ticket
 * endpoint answers this origin's own script only. API answers are left alone.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { APP, people, signIn, visit } from "./helpers";

interface Injected {
  src: string;
  data: Record<string, string>;
}

async function liveScriptOf(res: Response): Promise<Injected | null> {
  let found: Injected | null = null;
  await new HTMLRewriter()
    .on("script[data-channel]", {
      element(el) {
        const data: Record<string, string> = {};
        for (const [name, value] of el.attributes as Iterable<[string, string]>) {
          if (name.startsWith("data-")) data[name.slice(5)] = value;
        }
        found = { src: el.getAttribute("src") ?? "", data };
      },
    })
    .transform(res)
    .text();
  return found;
}

const ticketRequest = (cookie: string | undefined, headers: Record<string, string> = { "X-Gatehouse-Live": "1" }) =>
  fetchConsumer("/__gatehouse/live-ticket", {
    method: "POST",
    headers: { ...(cookie ? { Cookie: cookie } : {}), ...headers },
  });

function fetchConsumer(path: string, init: RequestInit) {
  return exports.default.fetch(new Request(`${APP}${path}`, { redirect: "manual", ...init }));
}

describe("the live channel in the consumer's pages", () => {
  it("a page gets /live.js of the auth worker with a fresh ticket, and a CSP that admits exactly it", async () => {
    const ada = people.ada();
    const { cookie } = await signIn(ada);
    const res = await visit("/dashboard", { cookie, accept: "text/html" });
    expect(res.status).toBe(200);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    const script = await liveScriptOf(res);
    expect(script).not.toBeNull();
    const auth = new URL(script!.src).origin;
    expect(script!.src).toBe(`${auth}/live.js`);
    expect(script!.data).toMatchObject({
      channel: expect.stringMatching(new RegExp(`^wss?://.+/parties/user-sessions/${ada.id}$`)),
      user: ada.id,
      ticket: expect.stringMatching(/^[A-Za-z0-9_-]{43}\.\d+\.[A-Za-z0-9_-]{43}$/),
      "ticket-url": "/__gatehouse/live-ticket",
      "signed-out": `${auth}/auth/signed-out`,
    });
    expect(script!.src).not.toContain(script!.data.ticket!);
    const directive = (name: string) =>
      csp
        .split(";")
        .map((d) => d.trim())
        .find((d) => d.startsWith(`${name} `)) ?? "";
    // The script itself, not its whole origin; the page is never cached (it holds a ticket).
    expect(directive("script-src").split(" ")).toEqual(["script-src", "'self'", `${auth}/live.js`]);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(directive("connect-src").split(" ")).toEqual([
      "connect-src",
      "'self'",
      new URL(script!.data.channel!).origin,
    ]);
    // Each page view has its own ticket.
    const again = await liveScriptOf(await visit("/dashboard", { cookie, accept: "text/html" }));
    expect(again!.data.ticket).not.toBe(script!.data.ticket);
  });

  it("API answers and signed-out visitors get no script; other pages keep the default CSP", async () => {
    const { cookie } = await signIn(people.alan());
    const api = await visit("/api/me", { cookie, accept: "application/json" });
    expect(api.headers.get("Content-Type")).toContain("application/json");
    const anonymous = await visit("/", { accept: "text/html" });
    expect(await liveScriptOf(anonymous)).toBeNull();
    expect(anonymous.headers.get("Content-Security-Policy")).toContain("script-src 'self';");
  });

  it("the ticket endpoint: this origin's script only (its header), a session required, never cached", async () => {
    const { cookie } = await signIn(people.grace());
    const ok = await ticketRequest(cookie);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Cache-Control")).toBe("no-store");
    expect(await ok.json()).toMatchObject({
      ticket: expect.stringMatching(/^[A-Za-z0-9_-]{43}\.\d+\.[A-Za-z0-9_-]{43}$/),
    });
    expect((await ticketRequest(cookie, {})).status).toBe(403); // a form or another site: no custom header
    expect((await ticketRequest(cookie, { "X-Gatehouse-Live": "1", "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect((await ticketRequest(undefined)).status).toBe(401);
  });
});
