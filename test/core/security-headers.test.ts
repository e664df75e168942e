import { Application, GatehouseError, type Middleware } from "gatehouse-workers";
import {
  allowContentSources,
  DEFAULT_CONTENT_SECURITY_POLICY,
  SecurityHeadersError,
  SecurityHeadersMiddleware,
} from "gatehouse-workers/security-headers";
import { describe, expect, it } from "vitest";

const HTML = { "Content-Type": "text/html; charset=utf-8" };

/** An application with the middleware first, then `later`, and a few routes. */
function app(headers = new SecurityHeadersMiddleware(), later: Middleware[] = []) {
  const a = Application.create({}, { middleware: [headers, ...later] });
  a.hono.get("/page", () => new Response("<p>hi</p>", { headers: HTML }));
  a.hono.get("/json", (c) => c.json({ ok: true }));
  a.hono.get("/own-csp", () => {
    const res = new Response("<p>own</p>", { headers: HTML });
    res.headers.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
    res.headers.set("Referrer-Policy", "same-origin");
    return res;
  });
  a.hono.get("/redirect", () => Response.redirect("https://x.example/elsewhere", 302));
  a.hono.get("/throws", () => {
    throw new Error("secret detail at /work/main/x.ts:1:2");
  });
  a.hono.get("/socket", () => {
    const [client, server] = Object.values(new WebSocketPair());
    server!.accept();
    return new Response(null, { status: 101, webSocket: client });
  });
  return a;
}

function expectBase(res: Response): void {
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  expect(res.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
  expect(res.headers.get("X-Frame-Options")).toBe("DENY");
  expect(res.headers.get("Cross-Origin-Resource-Policy")).toBeNull();
}

describe("SecurityHeadersMiddleware", () => {
  it("sets nosniff, Referrer-Policy and X-Frame-Options on every answer, and the CSP on HTML only", async () => {
    const a = app();
    const page = await a.fetch(new Request("http://x/page"));
    expectBase(page);
    const csp = page.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(page.headers.get("Cross-Origin-Opener-Policy")).toBe("same-origin");
    expect(await page.text()).toBe("<p>hi</p>");

    const json = await a.fetch(new Request("http://x/json"));
    expectBase(json);
    expect(json.headers.get("Content-Security-Policy")).toBeNull();
    expect(await json.json()).toEqual({ ok: true });
  });

  it("sends HSTS only when the request came over https", async () => {
    const a = app();
    expect((await a.fetch(new Request("http://x/json"))).headers.get("Strict-Transport-Security")).toBeNull();
    const https = await a.fetch(new Request("https://x/json"));
    expect(https.headers.get("Strict-Transport-Security")).toBe("max-age=31536000; includeSubDomains");
  });

  it("covers the router's 404 and 500 answers, and the early answers and throws of later middleware", async () => {
    const limiter: Middleware = {
      handle: async (request, next) =>
        new URL(request.url).pathname === "/limited"
          ? Response.json({ error: "rate_limited" }, { status: 429, headers: { "Retry-After": "30" } })
          : next(),
    };
    const broken: Middleware = {
      handle: async (request, next) => {
        if (new URL(request.url).pathname === "/broken") throw new Error("internal detail /work/main/y.ts:3:4");
        return next();
      },
    };
    const a = app(undefined, [limiter, broken]);
    for (const [path, status] of [
      ["/nowhere", 404],
      ["/throws", 500],
      ["/limited", 429],
      ["/broken", 500],
    ] as const) {
      const res = await a.fetch(new Request(`https://x${path}`));
      expect(res.status, path).toBe(status);
      expectBase(res);
      expect(res.headers.get("Strict-Transport-Security"), path).not.toBeNull();
      const body = await res.text();
      expect(body, path).not.toMatch(/\/work\/|\.ts:\d|detail/);
    }
  });

  it("keeps headers a route set itself", async () => {
    const res = await app().fetch(new Request("http://x/own-csp"));
    expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers.get("Referrer-Policy")).toBe("same-origin");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("copies a response whose headers are immutable before setting them", async () => {
    const immutable = Response.redirect("https://x.example/elsewhere", 302);
    expect(() => immutable.headers.set("X-Test", "1")).toThrow(TypeError);
    const res = await app().fetch(new Request("https://x/redirect"));
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("https://x.example/elsewhere");
    expectBase(res);
    expect(res.headers.get("Strict-Transport-Security")).not.toBeNull();
  });

  it("leaves a 101 WebSocket upgrade untouched", async () => {
    const res = await app().fetch(new Request("https://x/socket", { headers: { Upgrade: "websocket" } }));
    expect(res.status).toBe(101);
    expect(res.webSocket).not.toBeNull();
    expect(res.headers.get("X-Content-Type-Options")).toBeNull();
    res.webSocket!.accept();
    res.webSocket!.close();
  });

  it("lets hosts replace or drop CSP directives, tune HSTS and turn single headers off", async () => {
    const headers = new SecurityHeadersMiddleware({
      contentSecurityPolicy: { connectSrc: ["'self'", "wss://auth.example.com"], baseUri: false, reportTo: ["csp"] },
      strictTransportSecurity: { maxAge: 63_072_000, includeSubDomains: false, preload: true },
      referrerPolicy: "no-referrer",
      xFrameOptions: false,
      crossOriginResourcePolicy: "cross-origin",
      crossOriginOpenerPolicy: false,
    });
    const res = await app(headers).fetch(new Request("https://x/page"));
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("connect-src 'self' wss://auth.example.com");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("report-to csp");
    expect(csp).not.toContain("base-uri");
    expect(res.headers.get("Strict-Transport-Security")).toBe("max-age=63072000; preload");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(res.headers.get("X-Frame-Options")).toBeNull();
    expect(res.headers.get("Cross-Origin-Resource-Policy")).toBe("cross-origin");
    expect(res.headers.get("Cross-Origin-Opener-Policy")).toBeNull();

    const none = new SecurityHeadersMiddleware({ contentSecurityPolicy: false, strictTransportSecurity: false });
    const plain = await app(none).fetch(new Request("https://x/page"));
    expect(plain.headers.get("Content-Security-Policy")).toBeNull();
    expect(plain.headers.get("Strict-Transport-Security")).toBeNull();
    expect(plain.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("refuses option values that would break or inject into a header", () => {
    for (const options of [
      { contentSecurityPolicy: { scriptSrc: ["'self'; script-src *"] } },
      { contentSecurityPolicy: { scriptSrc: ["'self'\r\nSet-Cookie: a=b"] } },
      { contentSecurityPolicy: { "script-src; x": ["'self'"] } as never },
      { strictTransportSecurity: { maxAge: -1 } },
      { strictTransportSecurity: { maxAge: 1.5 } },
    ]) {
      const attempt = () => new SecurityHeadersMiddleware(options);
      expect(attempt).toThrow(SecurityHeadersError);
      try {
        attempt();
      } catch (err) {
        expect(err).toBeInstanceOf(GatehouseError);
        expect((err as SecurityHeadersError).code).toBe("invalid_option");
      }
    }
  });

  it("applyTo secures an answer built outside the chain", () => {
    const res = new SecurityHeadersMiddleware().applyTo(
      new Request("https://x/"),
      new Response("<h1>Unavailable</h1>", { status: 503, headers: HTML }),
    );
    expectBase(res);
    expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("Strict-Transport-Security")).not.toBeNull();
  });

  it("exports a frozen default policy that frames nothing and runs no inline script", () => {
    expect(Object.isFrozen(DEFAULT_CONTENT_SECURITY_POLICY)).toBe(true);
    expect(DEFAULT_CONTENT_SECURITY_POLICY.frameAncestors).toEqual(["'none'"]);
    expect(DEFAULT_CONTENT_SECURITY_POLICY.scriptSrc).toEqual(["'self'"]);
  });
});

describe("allowContentSources (issue 18): a handler lets a named origin into its own page's policy", () => {
  it("adds host sources to fetch directives for that answer only; never a keyword, a wildcard or another directive", async () => {
    const a = Application.create({}, { middleware: [new SecurityHeadersMiddleware()] });
    a.hono.get("/with", (c) => {
      allowContentSources(c.req.raw, {
        scriptSrc: ["https://auth.example.com/live.js"],
        connectSrc: ["wss://auth.example.com"],
      });
      return new Response("<p>hi</p>", { headers: HTML });
    });
    a.hono.get("/without", () => new Response("<p>hi</p>", { headers: HTML }));
    const csp = (await a.fetch(new Request("https://app.example.com/with"))).headers.get("Content-Security-Policy")!;
    expect(csp).toContain("script-src 'self' https://auth.example.com/live.js;");
    expect(csp).toContain("connect-src 'self' wss://auth.example.com;");
    const plain = (await a.fetch(new Request("https://app.example.com/without"))).headers.get(
      "Content-Security-Policy",
    )!;
    expect(plain).not.toContain("auth.example.com");

    const request = new Request("https://app.example.com/");
    for (const bad of ["'unsafe-inline'", "*", "https:", "'unsafe-eval'", "https://*.example.com", "data:"]) {
      expect(() => allowContentSources(request, { scriptSrc: [bad] }), bad).toThrow(SecurityHeadersError);
    }
    expect(() =>
      allowContentSources(request, { frameAncestors: ["https://evil.example"] } as unknown as { scriptSrc: string[] }),
    ).toThrow(/not a fetch directive/);
  });
});
