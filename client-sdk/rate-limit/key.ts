/**
 * @module
 * Which client a request counts against. The default is the address the
 * edge sets (`CF-Connecting-IP`, the spec's `Edge-Connecting-IP`), then the
 * first `X-Forwarded-For` address, then `unknown`. Only the first is set by
 * Cloudflare itself; off Cloudflare every fallback is spoofable by the client.
 * An IPv6 client owns a whole /64, so IPv6 addresses count by their /64.
 */
import { sha256Hex } from "../core/digest";

/** Turns a request into the key it is counted against. */
export type KeyExtractor = (request: Request) => string;

/** The header Cloudflare's edge sets to the connecting client's address (spec: `Edge-Connecting-IP`). */
export const EDGE_CONNECTING_IP_HEADER = "CF-Connecting-IP";

/** The key used when no address header is present. */
export const UNKNOWN_KEY = "unknown";

/**
 * `CF-Connecting-IP`, else the first address of `X-Forwarded-For`, else `"unknown"`.
 * Behind Cloudflare the first header always exists and clients cannot set it;
 * anywhere else a client can send either header with any value, so pass a
 * `keyExtractor` (a user id, an API key) when the worker is not behind Cloudflare.
 */
export function defaultKeyExtractor(request: Request): string {
  const edge = request.headers.get(EDGE_CONNECTING_IP_HEADER)?.trim();
  if (edge) return addressKey(edge);
  const first = request.headers.get("X-Forwarded-For")?.split(",")[0]?.trim();
  if (first) return addressKey(first);
  return UNKNOWN_KEY;
}

/**
 * `CF-Connecting-IP` only (never a client-settable header), else `"unknown"`: for workers that
 * are only ever reached through Cloudflare, such as the auth worker's own route limits.
 */
export function edgeAddressKeyExtractor(request: Request): string {
  const edge = request.headers.get(EDGE_CONNECTING_IP_HEADER)?.trim();
  return edge ? addressKey(edge) : UNKNOWN_KEY;
}

/**
 * The bucket of a client address: an IPv4 address as is, an IPv6 address as its /64
 * (`2001:db8:1:2::/64`, lower case, zeros compressed), an IPv4-mapped IPv6 address as its IPv4
 * address. Anything that is not an address is returned unchanged (trimmed).
 */
export function addressKey(address: string): string {
  const value = address.trim();
  if (!value.includes(":")) return value;
  const groups = expandIpv6(value.replace(/^\[|\](:\d+)?$/g, "").replace(/%.*$/, ""));
  if (!groups) return value;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  const prefix = groups.slice(0, 4);
  while (prefix.length > 0 && prefix[prefix.length - 1] === 0) prefix.pop();
  return `${prefix.map((g) => g.toString(16)).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` and a trailing dotted IPv4 allowed), or null. */
function expandIpv6(text: string): number[] | null {
  let head = text;
  const tail: number[] = [];
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const bytes = v4.slice(1).map(Number);
    if (bytes.some((b) => b > 255)) return null;
    tail.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!);
    head = text.slice(0, v4.index);
    if (!head.endsWith("::")) head = head.slice(0, -1); // "…:1.2.3.4": drop the separator
  }
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (!left || !right) return null;
  const known = left.length + right.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  return [...left, ...new Array<number>(8 - known).fill(0), ...right, ...tail];
}

/** Keys longer than this many characters are replaced by their SHA-256 before use. */
export const HASH_KEYS_LONGER_THAN = 128;

/**
 * The key as stores see it: short keys unchanged, long ones (a spoofed
 * 8 KB header, say) as `sha256:<hex>`, so KV keys stay under 512 bytes and
 * Durable Object names stay small. Stable for a given input.
 */
export function storeKey(key: string): string | Promise<string> {
  if (key.length <= HASH_KEYS_LONGER_THAN) return key;
  return sha256Key(key);
}

async function sha256Key(key: string): Promise<string> {
  return `sha256:${await sha256Hex(key)}`;
}
