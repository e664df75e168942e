/**
 * @module
 * The worker's door for device binding (issue 30, DBSC): `DeviceBinding` (door.ts: the registration
 * header, the register and refresh answers, resolve's bound-cookie check), over pure functions for
 * headers, proofs, keys, challenges, the bound cookie and the session instructions (WebCrypto). The
 * session object keeps keys and challenges (durable-objects/user-sessions/device-binding.ts).
 */
export { type BindingSession, type BindingStatus, DBSC_PATHS, DeviceBinding, type DeviceBindingParts } from "./door";
export {
  challengeHeader,
  type HeaderResult,
  type RegistrationHeaderOptions,
  readSessionId,
  readSessionResponse,
  readSkipped,
  registrationHeader,
} from "./headers";
export { type JwkResult, jwkThumbprint, validatePublicJwk } from "./jwk";
export { type ProofOptions, type ProofRefusal, type ProofResult, type VerifiedProof, verifyProof } from "./proof";
export { type BindingScope, bindingScope, bindingSite } from "./scope";
export {
  type BoundCookieSpec,
  boundCookieAttributes,
  buildSessionConfig,
  endSessionConfig,
} from "./session-config";
export {
  BOUND_COOKIE_TTL_MS,
  BoundCookie,
  CHALLENGE_BYTES,
  mintChallenge,
} from "./tokens";
export {
  type DeviceBoundSessionsWellKnownOptions,
  deviceBoundSessionsWellKnown,
  WELL_KNOWN_MAX_AGE_SECONDS,
  wellKnownResponse,
} from "./well-known";
