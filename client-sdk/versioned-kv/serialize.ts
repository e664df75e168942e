/**
 * @module
 * Strict JSON serialisation and SHA-256 hex digests for VersionedKVStore.
 * It must never let a value through that would not read back as it was
 * written: undefined, functions, symbols, BigInt, NaN/Infinity and cycles
 * are refused with a `VersionedKVError`, before any I/O.
 */
import { VersionedKVError } from "./errors";

/** KV's largest value, 25 MiB. */
export const KV_MAX_VALUE_BYTES = 25 * 1024 * 1024;

function strict(this: unknown, key: string, value: unknown): unknown {
  const type = typeof value;
  if (type === "function" || type === "symbol" || (type === "number" && !Number.isFinite(value))) {
    throw refuse(key, `a ${type === "number" ? String(value) : type}`);
  }
  if (value === undefined && Array.isArray(this)) throw refuse(key, "undefined (in an array)");
  return value;
}

function refuse(key: string, what: string, cause?: unknown): VersionedKVError {
  const where = key === "" ? "the value" : `property ${JSON.stringify(key)}`;
  return new VersionedKVError("unserialisable_value", {
    message: `VersionedKVStore: ${where} is ${what}, which JSON cannot represent`,
    cause,
  });
}

/**
 * `JSON.stringify(value)` with the cases JSON would silently drop or mangle
 * turned into errors. Properties whose value is `undefined` are omitted, as
 * JSON does; `toJSON` (Date…) is honoured.
 */
export function toJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, strict);
  } catch (err) {
    if (err instanceof VersionedKVError) throw err;
    // JSON.stringify throws a TypeError for cycles and BigInt (a toJSON may throw anything).
    const message = err instanceof Error ? err.message : String(err);
    if (/bigint/i.test(message)) throw refuse("", "or contains a BigInt", err);
    if (/circular|cyclic/i.test(message)) throw refuse("", "or contains a cycle", err);
    throw new VersionedKVError("unserialisable_value", {
      message: `VersionedKVStore: the value could not be serialised to JSON (${message})`,
      cause: err,
    });
  }
  if (text === undefined) throw refuse("", typeof value === "undefined" ? "undefined" : `a ${typeof value}`);
  return text;
}
