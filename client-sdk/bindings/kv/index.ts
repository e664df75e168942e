/**
 * @module
 * `KVStore`: the spec's typed wrapper over a Workers KV namespace. It adds
 * no I/O of its own (bench `bindings.kv_get_ratio`), and never hides KV's
 * rules: `expirationTtl` below 60 s is rejected here with a clear error
 * instead of failing later inside the runtime.
 */
import { BindingError } from "../errors";

/** Options of `put` (spec: KVPutOptions). */
export interface KVPutOptions {
  /** Absolute expiry, seconds since the Unix epoch. */
  expiration?: number;
  /** Expiry in seconds from now; KV's minimum is 60. */
  expirationTtl?: number;
  /** Arbitrary JSON-serialisable metadata (at most 1024 bytes serialised). */
  metadata?: unknown;
}

/** Options of `list` (spec: KVListOptions). */
export interface KVListOptions {
  prefix?: string;
  limit?: number;
  cursor?: string;
}

export type KVValueType = "text" | "json";

/** KV's minimum `expirationTtl`, in seconds. */
export const KV_MIN_TTL_SECONDS = 60;

export class KVStore {
  readonly #kv: KVNamespace;

  constructor(kv: KVNamespace) {
    this.#kv = kv;
  }

  /** The underlying binding. */
  get raw(): KVNamespace {
    return this.#kv;
  }

  /** The value, or null when the key is absent. `type` defaults to `"text"`. */
  get<T = string>(key: string, type: KVValueType = "text"): Promise<T | null> {
    return (type === "json" ? this.#kv.get(key, "json") : this.#kv.get(key, "text")) as Promise<T | null>;
  }

  /** The value with its metadata; both null when the key is absent. */
  async getWithMetadata<T = string, M = unknown>(
    key: string,
    type: KVValueType = "text",
  ): Promise<{ value: T | null; metadata: M | null }> {
    const result =
      type === "json" ? await this.#kv.getWithMetadata<M>(key, "json") : await this.#kv.getWithMetadata<M>(key, "text");
    return { value: result.value as T | null, metadata: (result.metadata ?? null) as M | null };
  }

  /** Stores a value. An `expirationTtl` under 60 s rejects with `BindingError("invalid_argument")`. */
  put(key: string, value: string | ArrayBuffer | ReadableStream, options?: KVPutOptions): Promise<void> {
    const error = checkPutOptions(options);
    if (error) return Promise.reject(error);
    return this.#kv.put(key, value, options as KVNamespacePutOptions | undefined);
  }

  /** Stores `JSON.stringify(value)`. */
  putJson<T>(key: string, value: T, options?: KVPutOptions): Promise<void> {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      return Promise.reject(
        new BindingError("invalid_argument", { message: `KVStore.putJson("${key}"): value is not JSON-serialisable` }),
      );
    }
    return this.put(key, text, options);
  }

  /** Deletes the key; a no-op when it is absent. */
  delete(key: string): Promise<void> {
    return this.#kv.delete(key);
  }

  /** One page of keys; pass the returned `cursor` back for the next page. */
  list<M = unknown>(options?: KVListOptions): Promise<KVNamespaceListResult<M, string>> {
    return this.#kv.list<M>(options);
  }
}

function checkPutOptions(options: KVPutOptions | undefined): BindingError | undefined {
  if (options?.expirationTtl !== undefined && !(options.expirationTtl >= KV_MIN_TTL_SECONDS)) {
    return new BindingError("invalid_argument", {
      message: `KV expirationTtl must be at least ${KV_MIN_TTL_SECONDS} seconds (got ${options.expirationTtl})`,
    });
  }
  return undefined;
}
