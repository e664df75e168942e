/**
 * @module
 * Password authentication of the built-in Postgres driver, with WebCrypto only: cleartext (type 3),
 * MD5 (type 5) and SCRAM-SHA-256 (types 10–12, RFC 5802 / RFC 7677, the Postgres default). SCRAM
 * also checks the server's signature, so a server that does not know the password cannot pose as
 * the database. It never logs or returns the password.
 */

import { concat, toHex } from "./protocol";

const encoder = new TextEncoder();

/** The PasswordMessage text for MD5: `md5` + md5hex(md5hex(password + user) + salt). */
export async function md5Password(user: string, password: string, salt: Uint8Array): Promise<string> {
  const inner = await md5Hex(encoder.encode(password + user));
  const outer = concat([encoder.encode(inner), salt]);
  return `md5${await md5Hex(outer)}`;
}

async function md5Hex(bytes: Uint8Array): Promise<string> {
  // workerd's WebCrypto offers MD5 for exactly this kind of legacy protocol.
  return toHex(await crypto.subtle.digest("MD5", bytes));
}

/**
 * One SCRAM-SHA-256 exchange. Postgres takes the user from the startup message, so the
 * client-first message names none (`n=`); `user` is there for the RFC's test vector.
 */
export class ScramSha256 {
  readonly clientFirstBare: string;
  #expectedServerSignature: string | null = null;
  #verified = false;

  constructor(
    readonly clientNonce: string = randomNonce(),
    user = "",
  ) {
    this.clientFirstBare = `n=${user.replaceAll("=", "=3D").replaceAll(",", "=2C")},r=${clientNonce}`;
  }

  /** The client-first message (no channel binding). */
  get clientFirst(): string {
    return `n,,${this.clientFirstBare}`;
  }

  /** The client-final message answering `serverFirst` (`r=…,s=…,i=…`). */
  async clientFinal(password: string, serverFirst: string): Promise<string> {
    const attributes = parseAttributes(serverFirst);
    const nonce = attributes.r ?? "";
    const salt = attributes.s;
    const iterations = Number(attributes.i);
    if (!nonce.startsWith(this.clientNonce) || nonce.length === this.clientNonce.length) {
      throw new Error("SCRAM: the server's nonce does not extend ours");
    }
    if (!salt || !Number.isInteger(iterations) || iterations < 1) throw new Error("SCRAM: malformed server-first");

    const salted = await pbkdf2(encoder.encode(password), base64Decode(salt), iterations);
    const clientKey = await hmac(salted, "Client Key");
    const storedKey = new Uint8Array(await crypto.subtle.digest("SHA-256", clientKey));
    const withoutProof = `c=biws,r=${nonce}`;
    const authMessage = `${this.clientFirstBare},${serverFirst},${withoutProof}`;
    const clientSignature = await hmac(storedKey, authMessage);
    const proof = clientKey.map((b, i) => b ^ (clientSignature[i] ?? 0));
    this.#expectedServerSignature = base64Encode(await hmac(await hmac(salted, "Server Key"), authMessage));
    return `${withoutProof},p=${base64Encode(proof)}`;
  }

  /** True once the server's final message carried the signature only a holder of the password can make. */
  get serverVerified(): boolean {
    return this.#verified;
  }

  /** Throws unless `serverFinal` (`v=…`) carries the signature only the password's holder can make. */
  verifyServerFinal(serverFinal: string): void {
    const { v, e } = parseAttributes(serverFinal);
    if (e !== undefined) throw new Error(`SCRAM: the server refused (${e})`);
    if (this.#expectedServerSignature === null || v !== this.#expectedServerSignature) {
      throw new Error("SCRAM: the server's signature does not match");
    }
    this.#verified = true;
  }
}

function parseAttributes(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of message.split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

function randomNonce(): string {
  return base64Encode(crypto.getRandomValues(new Uint8Array(18)));
}

async function pbkdf2(password: Uint8Array, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", password, "PBKDF2", false, ["deriveBits"]);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256),
  );
}

async function hmac(key: Uint8Array, message: string): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, encoder.encode(message)));
}

function base64Encode(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function base64Decode(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
