/**
 * @module
 * SHA-256 as lower-case hex, the one digest helper shared by the SDK and the
 * auth module (session ids, content hashes, long rate-limit keys). It never
 * keys a hash: use HMAC for anything an attacker must not forge.
 */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/** Bytes as lower-case hex, two digits each. */
function toHex(bytes: Uint8Array | ArrayBuffer): string {
  let hex = "";
  for (const b of bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes) hex += HEX[b];
  return hex;
}

/** Lower-case hex SHA-256 of a string (UTF-8) or of bytes. */
export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  return toHex(await crypto.subtle.digest("SHA-256", bytes));
}
