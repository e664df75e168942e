/**
 * @module gatehouse-workers/versioned-kv
 * `VersionedKVStore`: content-addressed values over KV (`content:{sha256}` and `ptr:{key}`), its
 * options and its error class. Exported by name; it needs only a KV binding (or `KVStore` of
 * `gatehouse-workers/bindings`).
 */
export {
  VersionedKVError,
  type VersionedKVErrorCode,
  type VersionedKVOptions,
  VersionedKVStore,
} from "../versioned-kv";
