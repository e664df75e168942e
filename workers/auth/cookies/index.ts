/**
 * @module
 * Cookie and JWT helpers of the spec: `parseCookie`, `buildSetCookie`,
 * `parseJwtExpiry`. Parsing never throws, whatever the header holds;
 * building throws a clear error rather than emit a header a browser would split.
 */

import { serialize } from "hono/utils/cookie";
import { decodeJwt } from "jose";

export interface CookieOptions {
  /** Seconds until expiry; 0 deletes the cookie. */
  maxAge?: number;
  expires?: Date;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: "Strict" | "Lax" | "None";
  partitioned?: boolean;
}

/**
 * Parses a Cookie header into a record, keeping every pair a browser sends, the way the widely
 * used parsers do (`cookie` on npm): names and values are trimmed, one pair of surrounding double
 * quotes is stripped, values are percent-decoded where that is valid and kept as sent otherwise
 * (quotes, backslashes and non-ASCII text included: other apps on the site set such cookies). The
 * first occurrence of a name wins; `__proto__` and friends are plain own keys. Never throws.
 */
export function parseCookie(cookieHeader: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof cookieHeader !== "string" || cookieHeader.length === 0) return out;
  for (const pair of cookieHeader.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    if (name === "" || Object.hasOwn(out, name)) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    Object.defineProperty(out, name, { value: decode(value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Percent-decodes when the value holds an escape and decoding succeeds; the text as sent otherwise. */
function decode(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// RFC 6265 token (name) and cookie-octet (value) grammars.
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
const ATTRIBUTE = /^[^;\r\n\0]*$/;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

function describeBad(text: string, allowed: RegExp): string {
  for (const ch of text) {
    if (!allowed.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(2, "0");
      return `${JSON.stringify(ch)} (U+${code.padStart(4, "0")})`;
    }
  }
  return "an invalid character";
}

/**
 * Builds a Set-Cookie header value. Throws a `TypeError` naming the
 * offending character when the name or value would break the header
 * (`;`, `,`, spaces, quotes, CR, LF, NUL, non-ASCII, …): encode values first.
 *
 * @example
 * ```ts
 * buildSetCookie("theme", "dark", { path: "/", maxAge: 3600, sameSite: "Lax" });
 * // "theme=dark; Max-Age=3600; Path=/; SameSite=Lax"
 * ```
 */
export function buildSetCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (!NAME.test(name)) {
    throw new TypeError(`Invalid cookie name ${JSON.stringify(name)}: contains ${describeBad(name || " ", NAME)}`);
  }
  if (!VALUE.test(value)) {
    throw new TypeError(`Invalid value for cookie "${name}": contains ${describeBad(value, VALUE)}; encode it first`);
  }
  // Parsers (ours included) percent-decode cookie values, so "%41" would come back as "A".
  if (PERCENT_ESCAPE.test(value)) {
    throw new TypeError(
      `Invalid value for cookie "${name}": contains a percent-escape (${PERCENT_ESCAPE.exec(value)![0]}) that parsers decode; encode the value (e.g. base64url) first`,
    );
  }
  if (options.maxAge !== undefined && !Number.isSafeInteger(options.maxAge)) {
    throw new RangeError(`Invalid maxAge for cookie "${name}": ${options.maxAge} is not a whole number of seconds`);
  }
  for (const key of ["domain", "path"] as const) {
    const attr = options[key];
    if (attr !== undefined && !ATTRIBUTE.test(attr)) {
      throw new TypeError(`Invalid ${key} for cookie "${name}": contains ${describeBad(attr, ATTRIBUTE)}`);
    }
  }
  if (/^__Host-/.test(name) && (options.secure !== true || options.path !== "/" || options.domain)) {
    throw new TypeError(`Cookie "${name}": the __Host- prefix requires Secure, Path=/ and no Domain`);
  }
  if (/^__Secure-/.test(name) && options.secure !== true) {
    throw new TypeError(`Cookie "${name}": the __Secure- prefix requires Secure`);
  }
  const header = serialize(name, "", {
    maxAge: options.maxAge,
    expires: options.expires,
    domain: options.domain,
    path: options.path,
    secure: options.secure,
    httpOnly: options.httpOnly,
    sameSite: options.sameSite,
    partitioned: options.partitioned,
  });
  // The value is already valid cookie-octets: insert it verbatim (hono would percent-encode it).
  return `${name}=${value}${header.slice(name.length + 1)}`;
}

/**
 * The `exp` claim (Unix seconds) of a JWT, without verifying its signature.
 * Null when the token is malformed or `exp` is absent or not a finite number.
 */
export function parseJwtExpiry(token: string): number | null {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === "number" && Number.isFinite(exp) ? exp : null;
  } catch {
    return null;
  }
}
