/**
 * @module
 * `createAuthWorker({ ssf })`: the transmitter's options, checked when the worker is built. The
 * keys never go here: `signingKeys` names the secret that holds them.
 */
import { redirectUrlProblem } from "../../config/rules";
import { SSF_SIGNING_KEYS } from "./keys";

export interface SsfTransmitterOptions {
  /**
   * The issuer (`iss` of every SET, `issuer` of the metadata): an https origin with no path, query
   * or fragment (http on loopback for development). Default: this worker's public origin (the
   * origin of `redirectUrl`).
   */
  issuer?: string;
  /** The secret env variable holding the signing keys (a JSON array of private P-256 JWKs). Default `SSF_SIGNING_KEYS`. */
  signingKeys?: string;
}

/** The checked options: the issuer as given (or none: the public origin) and the variable's name. */
export interface ResolvedSsfTransmitterOptions {
  issuer?: string;
  signingKeys: string;
}

/** Throws a `TypeError` naming the option at fault. */
export function checkSsfOptions(options: SsfTransmitterOptions): ResolvedSsfTransmitterOptions {
  if (typeof options !== "object" || options === null) throw new TypeError("createAuthWorker: ssf must be an object");
  const signingKeys = options.signingKeys ?? SSF_SIGNING_KEYS;
  if (typeof signingKeys !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(signingKeys)) {
    throw new TypeError(
      `createAuthWorker: ssf.signingKeys must be a variable name, got ${JSON.stringify(signingKeys)}`,
    );
  }
  if (options.issuer === undefined) return { signingKeys };
  const issuer = options.issuer;
  if (typeof issuer !== "string" || redirectUrlProblem(issuer) !== null) {
    throw new TypeError("createAuthWorker: ssf.issuer must be an https URL (http only on loopback)");
  }
  const url = new URL(issuer);
  // SSF 1.0 §6.2 would put a path's metadata at /.well-known/ssf-configuration/<path>: one issuer per worker, no path.
  if (url.origin !== issuer.replace(/\/$/, "")) {
    throw new TypeError("createAuthWorker: ssf.issuer must be an origin (no path, query or fragment, no credentials)");
  }
  return { issuer: url.origin, signingKeys };
}
