/**
 * @module
 * `safeReturnTo`: accepts same-origin paths only. Anything else — other
 * origins, scheme-relative `//host`, backslash tricks, `javascript:`,
 * encoded or whitespace-smuggled variants — falls back to "/". Never throws.
 */

const MAX_LENGTH = 2048;

export function safeReturnTo(value: unknown, fallback = "/"): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_LENGTH) return fallback;
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
  return `${url.pathname}${url.search}${url.hash}`;
}
