import fc from "fast-check";
import { buildSetCookie, parseCookie, parseJwtExpiry } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";

describe("parseCookie", () => {
  it("parses a Cookie header into a record", () => {
    expect(parseCookie("a=1; b=two;c=%20x")).toEqual({ a: "1", b: "two", c: " x" });
  });
  it("keeps the first occurrence of a name and skips junk", () => {
    expect(parseCookie('a=1; a=2; ;=x; noval; b="q"')).toEqual({ a: "1", b: "q" });
  });
  it("keeps cookies a browser sends whatever their value holds (quotes, backslashes, non-ASCII)", () => {
    expect(parseCookie('pref={"a":1}; path=C:\\x; name=Zoë; bad=%E0%A4%A; q="quoted"; __proto__=p')).toEqual({
      pref: '{"a":1}',
      path: "C:\\x",
      name: "Zoë",
      bad: "%E0%A4%A",
      q: "quoted",
      ["__proto__"]: "p",
    });
    expect(Object.getPrototypeOf(parseCookie("__proto__=x"))).toBe(Object.prototype);
  });
  it("returns an empty record for an empty or odd header", () => {
    expect(parseCookie("")).toEqual({});
    expect(parseCookie(";;;")).toEqual({});
  });
  it("never throws on any string (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (header) => {
        const parsed = parseCookie(header);
        expect(typeof parsed).toBe("object");
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("buildSetCookie", () => {
  it("builds a header with every attribute", () => {
    const header = buildSetCookie("__Host-s", "abc.def", {
      path: "/",
      secure: true,
      httpOnly: true,
      sameSite: "Lax",
      maxAge: 60,
    });
    expect(header).toBe("__Host-s=abc.def; Max-Age=60; Path=/; HttpOnly; Secure; SameSite=Lax");
  });
  it("round-trips through parseCookie", () => {
    const header = buildSetCookie("t", "a-b_c.d~e", { path: "/" });
    expect(parseCookie(header.split(";")[0]!)).toEqual({ t: "a-b_c.d~e" });
  });
  it.each([
    ["a;b", "semicolon"],
    ["a\r\nSet-Cookie: x=1", "CRLF"],
    ["a\nb", "LF"],
    ["a b", "space"],
    ['a"b', "quote"],
    ["a,b", "comma"],
    ["é", "non-ASCII"],
    ["a\0b", "NUL"],
  ])("throws a clear error for a value with a %s (%s)", (value) => {
    expect(() => buildSetCookie("name", value)).toThrowError(/Invalid value for cookie "name": contains/);
  });
  it.each(["a;b", "a b", "a=b", "", "a\r\n"])("throws for the bad name %j", (name) => {
    expect(() => buildSetCookie(name, "v")).toThrowError(/Invalid cookie name/);
  });
  it("throws for a domain or path that would inject attributes", () => {
    expect(() => buildSetCookie("a", "b", { domain: "x.com; Secure" })).toThrowError(/Invalid domain/);
    expect(() => buildSetCookie("a", "b", { path: "/\r\nX: y" })).toThrowError(/Invalid path/);
  });
  it("enforces the __Host- and __Secure- prefix rules", () => {
    expect(() => buildSetCookie("__Host-a", "b", { path: "/" })).toThrowError(/__Host-/);
    expect(() => buildSetCookie("__Host-a", "b", { path: "/", secure: true, domain: "x.com" })).toThrowError(/__Host-/);
    expect(() => buildSetCookie("__Secure-a", "b", {})).toThrowError(/__Secure-/);
  });
});

function jwt(payload: unknown): string {
  const enc = (v: unknown) => btoa(JSON.stringify(v)).replaceAll("=", "").replaceAll("+", "-").replaceAll("/", "_");
  return `${enc({ alg: "none", typ: "JWT" })}.${enc(payload)}.sig`;
}

describe("parseJwtExpiry", () => {
  it("returns exp without verifying the signature", () => {
    expect(parseJwtExpiry(jwt({ exp: 1_900_000_000, sub: "u" }))).toBe(1_900_000_000);
  });
  it.each([
    ["no exp", jwt({ sub: "u" })],
    ["string exp", jwt({ exp: "1900000000" })],
    ["two parts", "a.b"],
    ["garbage", "not a jwt"],
    ["bad base64", "%%%.%%%.%%%"],
    ["empty", ""],
    ["JSON array payload", `${btoa("{}")}.${btoa("[1]")}.x`],
  ])("returns null for %s", (_label, token) => {
    expect(parseJwtExpiry(token)).toBeNull();
  });
  it("never throws on any string (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (token) => {
        const exp = parseJwtExpiry(token);
        expect(exp === null || Number.isFinite(exp)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});
