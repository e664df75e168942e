/**
 * Identifiers and secrets minted by the local identity provider: WorkOS-style prefixed ULIDs for
 * objects (`session_01…`) and opaque random strings for codes and refresh tokens.
 * Randomness always comes from `crypto.getRandomValues`; never derive a secret from the clock.
 */

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A ULID (26 Crockford base32 characters: 48-bit time, 80 random bits), e.g. `01HQSXZGF8FHF7A9ZZFCW4387R`. */
export function ulid(nowMs: number): string {
  let time = "";
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let rand = "";
  for (const byte of bytes) rand += CROCKFORD[byte % 32];
  return time + rand;
}

/** An opaque secret of `bytes` random bytes, base64url without padding. */
export function randomSecret(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}
