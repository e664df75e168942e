/**
 * @module
 * The SSF receiver (issue 32): upstream transmitters push SETs to `POST /ssf/events`; verified
 * ones end sessions. Off unless `ssf.transmitters` is configured.
 */
export { type ActedEvent, type ActOutcome, actOn, recordReplay } from "./act";
export {
  type ResolvedTransmitter,
  resolveSsfTransmitters,
  type SsfReceiverOptions,
  type SsfTransmitterOption,
} from "./options";
export { SeenTokens } from "./replay";
export { pushError, registerSsfReceiver, SSF_EVENTS_PATH, type SsfReceiverRouteOptions } from "./route";
export { type MatchedSubject, matchSubject } from "./subjects";
export { ALGORITHMS, KeysUnavailable, type PushErrorCode, type Verified, verifySet } from "./verify";
