/**
 * @module
 * `createAuthWorker({ ssf })`: the transmitter's options, checked when the worker is built. The
 * keys never go here: `signingKeys` names the secret that holds them, and each receiver's `token`
 * the secret holding its bearer token for the stream management API.
 */
import { SSF_SIGNING_KEYS } from "../../../../durable-objects/ssf-streams";
import { redirectUrlProblem } from "../../config/rules";

/** One receiver allowed to manage streams (SSF 1.0 §8: its token ties it to its streams and their `aud`). */
export interface SsfReceiverGrantOption {
  /** The secret env variable holding its bearer token for the management API (never the admin token). */
  token: string;
  /** Origins its push endpoints may be under (`https://siem.example.com`): an `endpoint_url` elsewhere is refused. */
  endpoints: string[];
  /** The `aud` of its streams and their SETs. Default: the first of `endpoints`. */
  audience?: string;
  /** Streams it may have at once (1-20). Default 3. */
  maxStreams?: number;
}

/** A receiver, checked. */
export interface ResolvedSsfReceiver {
  name: string;
  tokenVariable: string;
  audience: string;
  endpoints: string[];
  maxStreams: number;
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RECEIVER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export interface SsfTransmitterOptions {
  /**
   * The issuer (`iss` of every SET, `issuer` of the metadata): an https origin with no path, query
   * or fragment (http on loopback for development). Default: this worker's public origin (the
   * origin of `redirectUrl`).
   */
  issuer?: string;
  /** The secret env variable holding the signing keys (a JSON array of private P-256 JWKs). Default `SSF_SIGNING_KEYS`. */
  signingKeys?: string;
  /**
   * The receivers that may create and manage streams through the SSF management API (SSF 1.0 §8),
   * by name (`/^[a-z][a-z0-9-]{0,31}$/`). Needs the `SsfStreams` Durable Object bound
   * (`bindings.ssfStreams`, default `SSF_STREAMS`). Default none: metadata and keys only.
   */
  receivers?: Record<string, SsfReceiverGrantOption>;
}

/** The checked options: the issuer as given (or none: the public origin), the variable's name, the receivers. */
export interface ResolvedSsfTransmitterOptions {
  issuer?: string;
  signingKeys: string;
  receivers: ResolvedSsfReceiver[];
}

/** Throws a `TypeError` naming the option at fault. */
export function checkSsfOptions(options: SsfTransmitterOptions): ResolvedSsfTransmitterOptions {
  if (typeof options !== "object" || options === null) throw new TypeError("createAuthWorker: ssf must be an object");
  const signingKeys = options.signingKeys ?? SSF_SIGNING_KEYS;
  if (typeof signingKeys !== "string" || !VARIABLE.test(signingKeys)) {
    throw new TypeError(
      `createAuthWorker: ssf.signingKeys must be a variable name, got ${JSON.stringify(signingKeys)}`,
    );
  }
  const receivers = checkReceivers(options.receivers, signingKeys);
  if (options.issuer === undefined) return { signingKeys, receivers };
  // SSF 1.0 §7.2 would put a path's metadata at /.well-known/ssf-configuration/<path>: one issuer per worker, no path.
  return { issuer: originOf(options.issuer, "createAuthWorker: ssf.issuer"), signingKeys, receivers };
}

/** `value` as an origin (https, or http on loopback; no path, query, fragment or credentials), or a TypeError naming `at`. */
function originOf(value: unknown, at: string): string {
  if (typeof value !== "string" || redirectUrlProblem(value) !== null) {
    throw new TypeError(`${at} must be an https URL (http only on loopback)`);
  }
  const url = new URL(value);
  if (url.origin !== value.replace(/\/$/, "")) {
    throw new TypeError(`${at} must be an origin (no path, query, fragment or credentials)`);
  }
  return url.origin;
}

function checkReceivers(value: unknown, signingKeys: string): ResolvedSsfReceiver[] {
  if (value === undefined) return [];
  const where = "createAuthWorker: ssf.receivers";
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object of { token, endpoints } by receiver name`);
  }
  const tokens = new Set<string>([signingKeys]);
  return Object.entries(value).map(([name, given]) => {
    const at = `${where}.${name}`;
    if (!RECEIVER_NAME.test(name)) {
      throw new TypeError(
        `${where}: ${JSON.stringify(name)} is not a receiver name (a-z, 0-9 and -, starting with a letter)`,
      );
    }
    const option = (typeof given === "object" && given !== null ? given : {}) as Partial<SsfReceiverGrantOption>;
    if (typeof option.token !== "string" || !VARIABLE.test(option.token)) {
      throw new TypeError(`${at}.token must be the name of the secret holding its bearer token`);
    }
    if (option.token === "ADMIN_API_TOKEN" || option.token === "ADMIN_API_TOKENS" || tokens.has(option.token)) {
      throw new TypeError(
        `${at}.token ${option.token} is another secret's variable; each receiver needs its own token`,
      );
    }
    tokens.add(option.token);
    if (!Array.isArray(option.endpoints) || option.endpoints.length === 0 || option.endpoints.length > 20) {
      throw new TypeError(`${at}.endpoints must list 1-20 origins its push endpoints may be under`);
    }
    const endpoints = option.endpoints.map((origin, i) => originOf(origin, `${at}.endpoints[${i}]`));
    const audience = option.audience ?? endpoints[0]!;
    if (typeof audience !== "string" || audience === "" || audience.length > 512) {
      throw new TypeError(`${at}.audience must be a non-empty string`);
    }
    const maxStreams = option.maxStreams ?? 3;
    if (!Number.isInteger(maxStreams) || maxStreams < 1 || maxStreams > 20) {
      throw new TypeError(`${at}.maxStreams must be a whole number from 1 to 20`);
    }
    return { name, tokenVariable: option.token, audience, endpoints, maxStreams };
  });
}
