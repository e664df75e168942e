/**
 * @module
 * The shared-signals transmitter (issue 32, foundation): signing keys, SET claims from our
 * timeline events, ES256 signing, and the metadata and JWKS routes.
 */
export { SsfTransmitterError, type SsfTransmitterErrorCode } from "./errors";
export { eventToSets, type InitiatingEntity, initiatingEntity, type SetContext } from "./events";
export {
  checkSigningKeys,
  loadSigningKeys,
  type PublicSigningJwk,
  type SigningKeys,
  type SigningKeysCheck,
  SSF_SIGNING_KEYS,
  signingKeysProblems,
} from "./keys";
export { checkSsfOptions, type ResolvedSsfTransmitterOptions, type SsfTransmitterOptions } from "./options";
export {
  PUSH_DELIVERY,
  registerSsfTransmitter,
  SSF_CONFIGURATION_PATH,
  SSF_JWKS_PATH,
  SSF_SPEC_VERSION,
  type SsfTransmitterMetadata,
  transmitterMetadata,
} from "./routes";
export { signSet } from "./sign";
