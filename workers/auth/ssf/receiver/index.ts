/**
 * @module
 * The SSF receiver (issue 32): upstream transmitters push SETs to `POST /ssf/events`; verified
 * ones end sessions. Off unless `ssf.transmitters` is configured.
 */
export { type ActedEvent, type ActOutcome, actOn, recordRefusal } from "./act";
export {
  type ResolvedTransmitter,
  resolveSsfTransmitters,
  type SsfReceiverOptions,
  type SsfTransmitterOption,
} from "./options";
export { JWKS_COOLDOWN_MS, JWKS_MAX_AGE_MS, KeysUnavailable } from "./remote-keys";
export { SeenTokens } from "./replay";
export { pushError, registerSsfReceiver, SSF_EVENTS_PATH, type SsfReceiverRouteOptions } from "./route";
export { type MatchedSubject, matchSubject } from "./subjects";
export { ALGORITHMS, type PushErrorCode, type Verified, verifySet } from "./verify";
