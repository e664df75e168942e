/**
 * @module
 * `SsfTransmitterError`: the one error type of the shared-signals transmitter. Its messages name
 * the variable or option at fault, never a key's value.
 */
import { GatehouseError } from "../../client-sdk/core/errors";

export type SsfTransmitterErrorCode = "signing_keys_invalid";

export class SsfTransmitterError extends GatehouseError<SsfTransmitterErrorCode> {
  override name = "SsfTransmitterError";
}
