/**
 * Issue 14 proof: property tests of the cookie codec. For every (name, value, options) that
 * `buildSetCookie` accepts, parsing the cookie it builds (alone or among other cookies) gives the
 * value back; `parseCookie` never throws on any header and never lets a name reach a prototype.
 */
import fc from "fast-check";
import { buildSetCookie, type CookieOptions, parseCookie } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";

const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const name = fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 24 });
/** Any text: printable ASCII with the troublemakers weighted in, and arbitrary Unicode. */
const value = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.~%"\\;, =\t', "%41", "%zz", "é", "💥"), maxLength: 24 }),
  fc.string({ maxLength: 24 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.base64String({ maxLength: 44 }),
);
const options: fc.Arbitrary<CookieOptions> = fc.record(
  {
    maxAge: fc.oneof(fc.integer({ min: -10, max: 10_000_000 }), fc.double()),
    path: fc.constantFrom("/", "/auth", "/a;b"),
    domain: fc.constantFrom("example.com", "bad;domain"),
    secure: fc.boolean(),
    httpOnly: fc.boolean(),
    sameSite: fc.constantFrom("Strict" as const, "Lax" as const, "None" as const),
  },
  { requiredKeys: [] },
);

function tryBuild(n: string, v: string, o: CookieOptions): string | null {
  try {
    return buildSetCookie(n, v, o);
  } catch (err) {
    expect(err).toBeInstanceOf(Error); // a clear TypeError/RangeError, never anything else
    return null;
  }
}

describe("cookie codec (property)", () => {
  it("what buildSetCookie accepts, parseCookie gives back exactly", () => {
    let accepted = 0;
    fc.assert(
      fc.property(name, value, options, (n, v, o) => {
        const line = tryBuild(n, v, o);
        if (line === null) return;
        accepted++;
        const pair = line.split(";")[0]!;
        expect(pair).toBe(`${n}=${v}`);
        expect(parseCookie(pair)[n]).toBe(v);
      }),
      { numRuns: 2_000 },
    );
    expect(accepted).toBeGreaterThan(200); // the property is about accepted values: make sure there are many
  });

  it("keeps the value among other cookies a browser sends, before and after it (first occurrence wins)", () => {
    /** Cookies the browser holds for other apps: any name, any value their own buildSetCookie accepted. */
    const others = fc.array(fc.tuple(name, value), { maxLength: 4 }).map((pairs) =>
      pairs.flatMap(([on, ov]) => {
        const line = tryBuild(on, ov, {});
        return line === null ? [] : [line.split(";")[0]!];
      }),
    );
    const separator = fc.constantFrom("; ", ";", ";  ", " ; ");
    fc.assert(
      fc.property(name, value, others, others, separator, (n, v, before, after, sep) => {
        const line = tryBuild(n, v, {});
        if (line === null) return;
        const pair = line.split(";")[0]!;
        const earlier = before.filter((p) => p.slice(0, p.indexOf("=")) !== n);
        const header = [...earlier, pair, ...after, `${n}=later`].join(sep);
        const parsed = parseCookie(header);
        expect(parsed[n]).toBe(v);
        for (const p of earlier) {
          const [on, ov] = [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)];
          if (earlier.find((q) => q.startsWith(`${on}=`)) === p) expect(parsed[on]).toBe(ov);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it("refuses a maxAge that is not a finite whole number, instead of rounding it", () => {
    for (const maxAge of [1.5, Number.NaN, Number.POSITIVE_INFINITY, -0.1, 2 ** 60]) {
      expect(() => buildSetCookie("a", "b", { maxAge })).toThrowError(RangeError);
    }
    expect(buildSetCookie("a", "b", { maxAge: 60 })).toContain("Max-Age=60");
  });

  it("refuses a value whose percent-escapes a parser would decode", () => {
    expect(() => buildSetCookie("a", "x%41")).toThrowError(/percent-escape/);
  });

  it("parseCookie never throws, and names are own keys that never reach a prototype", () => {
    const header = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({
        unit: fc.constantFrom(...'a=;,% \t"\\', "%E9", "%zz", "__proto__", "constructor", "prototype", "é", "\0"),
        maxLength: 60,
      }),
    );
    fc.assert(
      fc.property(header, (text) => {
        const parsed = parseCookie(text);
        expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
        for (const key of Object.keys(parsed)) expect(typeof parsed[key]).toBe("string");
        expect(Object.keys(Object.prototype)).toEqual([]);
      }),
      { numRuns: 2_000 },
    );
    const parsed = parseCookie("__proto__=x; constructor=y; toString=z");
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
    expect(parsed.constructor).toBe("y");
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
