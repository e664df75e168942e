/**
 * @module
 * Which client a request counts against. The default is the address the
 * edge sets (`CF-Connecting-IP`, the spec's `Edge-Connecting-IP`), then the
 * first `X-Forwarded-For` address, then `unknown`. Only the first is set by
 * Cloudflare itself; off Cloudflare every fallback is spoofable by the client.
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
  if (edge) return edge;
  const first = request.headers.get("X-Forwarded-For")?.split(",")[0]?.trim();
  if (first) return first;
  return UNKNOWN_KEY;
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
