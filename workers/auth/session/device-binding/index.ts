/**
 * @module
 * The worker's door for device binding (issue 30, DBSC): headers, proofs, keys, challenges, the bound
 * cookie and the session instructions, as pure functions over WebCrypto. Not wired into any request
 * path yet; the session object keeps keys and challenges (durable-objects/user-sessions/device-binding.ts).
 */
export {
  challengeHeader,
  type HeaderResult,
  type RegistrationHeaderOptions,
  readLooseString,
  readSessionId,
  readSessionResponse,
  readSkipped,
  registrationHeader,
} from "./headers";
export { importVerifyKey, type JwkResult, jwkThumbprint, MIN_RSA_BITS, validatePublicJwk } from "./jwk";
export { type ProofOptions, type ProofRefusal, type ProofResult, type VerifiedProof, verifyProof } from "./proof";
export {
  type BoundCookieSpec,
  boundCookieAttributes,
  buildSessionConfig,
  endSessionConfig,
  type SessionConfigOptions,
} from "./session-config";
export {
  BOUND_COOKIE_TTL_MS,
  BoundCookie,
  type BoundCookieResult,
  CHALLENGE_BYTES,
  mintChallenge,
} from "./tokens";
