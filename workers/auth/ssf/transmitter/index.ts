/**
 * @module
 * The shared-signals transmitter (issue 32): the metadata and JWKS routes, the stream management
 * API for configured receivers (`ssf.receivers`), and, re-exported from the streams object's room,
 * the signing keys, SET claims from our timeline events and ES256 signing.
 */

export { PUSH_DELIVERY } from "../../../../client-sdk/protocol/shared-signals";
export {
  checkSigningKeys,
  eventToSets,
  type InitiatingEntity,
  initiatingEntity,
  loadSigningKeys,
  type PublicSigningJwk,
  type SetContext,
  type SigningKeys,
  type SigningKeysCheck,
  SSF_SIGNING_KEYS,
  SsfTransmitterError,
  type SsfTransmitterErrorCode,
  signSet,
} from "../../../../durable-objects/ssf-streams";
export {
  checkSsfOptions,
  type ResolvedSsfTransmitterOptions,
  type SsfReceiverGrantOption,
  type SsfTransmitterOptions,
} from "./options";
export { receiverTokenProblems, signingKeysProblems } from "./problems";
export {
  registerSsfTransmitter,
  SSF_CONFIGURATION_PATH,
  SSF_JWKS_PATH,
  SSF_SPEC_VERSION,
  type SsfTransmitterMetadata,
  transmitterMetadata,
} from "./routes";
