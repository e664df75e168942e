/**
 * @module
 * base64url (RFC 4648 §5, no padding): the one encoder every layer uses for tokens, challenges and
 * signatures, and `randomToken`, a fresh random value in that form (the randomness injectable).
 */

/** A source of random bytes (`crypto.getRandomValues` by default); injectable so tests can be deterministic. */
export type RandomSource = (bytes: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>;
export const defaultRandom: RandomSource = (bytes) => crypto.getRandomValues(bytes);

/** `bytes` as base64url without padding. */
export function base64url(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const b of view) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** `length` random bytes (default 32: 256 bits) as base64url. */
export function randomToken(length = 32, random: RandomSource = defaultRandom): string {
  return base64url(random(new Uint8Array(length)));
}

/** base64url text (padding not accepted) as bytes, or null when it is not base64url. */
export function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}
