/**
 * @module
 * Content-addressed versioned values over KV: `VersionedKVStore`, its
 * options and its error class. Exported by name; depends only on the KV
 * wrapper and the core error contract.
 */
export { VersionedKVError, type VersionedKVErrorCode } from "./errors";
export { DEFAULT_CONTENT_TTL, type PointerMetadata, type VersionedKVOptions, VersionedKVStore } from "./store";
