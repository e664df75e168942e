/**
 * @module
 * `safeReturnTo`: accepts same-origin paths, and absolute URLs only on
 * origins the operator listed (`AUTH_RETURN_ORIGINS`, e.g. the consuming
 * apps). Anything else — other origins, scheme-relative `//host`, backslash
 * tricks, `javascript:`, credentials in the URL, encoded or
 * whitespace-smuggled variants — falls back to "/". Never throws.
 */

const MAX_LENGTH = 2048;

export function safeReturnTo(value: unknown, fallback = "/", allowedOrigins: readonly string[] = []): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_LENGTH) return fallback;
  if (allowedOrigins.length > 0 && /^https?:\/\//i.test(value))
    return allowedAbsolute(value, allowedOrigins) ?? fallback;
  // Control characters, whitespace and backslashes have no business in a path and are
  // how parsers get confused into reading a host (`/\evil.com`, `/\t/evil.com`).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u0020\u007f\\]/.test(value)) return fallback;
  if (!value.startsWith("/") || value.startsWith("//")) return fallback;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return fallback;
  }
  // Encoded variants: %2F%2Fevil.com, %5Cevil.com, %09, %00 …
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(decoded) || decoded.startsWith("//")) return fallback;
  const base = "http://gatehouse.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base) return fallback;
  // Dot segments collapse while parsing: `/.//evil.com` and `/a/..//evil.com` become `//evil.com`.
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith("//") ? fallback : path;
}

function allowedAbsolute(value: string, allowedOrigins: readonly string[]): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u0020\u007f\\]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.username || url.password || !allowedOrigins.includes(url.origin)) return null;
  return url.href;
}

/** Parses `AUTH_RETURN_ORIGINS` ("https://app.example.com, https://admin.example.com"); throws on a non-origin. */
export function parseOrigins(list: string | undefined): string[] {
  if (!list) return [];
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let origin: string;
      try {
        origin = new URL(entry).origin;
      } catch {
        throw new TypeError(`AUTH_RETURN_ORIGINS: "${entry}" is not an origin`);
      }
      if (origin !== entry.replace(/\/$/, ""))
        throw new TypeError(`AUTH_RETURN_ORIGINS: "${entry}" is not a bare origin`);
      return origin;
    });
}
