/**
 * @module
 * The error class of the versioned key-value layer. Every code is a
 * programmer error caught before any KV operation, so nothing is written
 * when one is thrown; messages name the option or key, never the value.
 */
import { GatehouseError, type GatehouseErrorOptions } from "../core/errors";

export type VersionedKVErrorCode = "invalid_option" | "invalid_key" | "unserialisable_value" | "value_too_large";

export class VersionedKVError extends GatehouseError<VersionedKVErrorCode> {
  override name = "VersionedKVError";

  constructor(code: VersionedKVErrorCode, options: GatehouseErrorOptions = {}) {
    super(code, { status: 500, ...options });
  }
}
