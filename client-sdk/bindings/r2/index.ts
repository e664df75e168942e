/**
 * @module
 * `ObjectStorage`: the spec's wrapper over an R2 bucket. Absent keys read as
 * null; `put` answers null instead of throwing when the object could not be
 * stored (a failed `onlyIf` precondition or a rejected upload), and logs why.
 * It never buffers bodies: streams pass through to R2 untouched.
 */

/** Metadata of a stored object (R2Object). */
export type StoredObject = R2Object;
/** A stored object with its body (R2ObjectBody). */
export type StoredObjectBody = R2ObjectBody;
/** One page of a listing (R2Objects): `objects`, `truncated`, `cursor`, `delimitedPrefixes`. */
export type StoredObjectList = R2Objects;
/** Options of `put`: HTTP metadata, custom metadata, checksums, `onlyIf`, storage class. */
export type ObjectPutOptions = R2PutOptions;
/** Options of `list` (spec: prefix, limit, cursor; R2's delimiter, include, startAfter too). */
export type ObjectListOptions = R2ListOptions;

/**
 * @example
 * ```ts
 * const files = new ObjectStorage(env.FILES);
 * await files.put("avatars/ada.png", request.body!, { httpMetadata: { contentType: "image/png" } });
 * const object = await files.get("avatars/ada.png");
 * if (object) return new Response(object.body, { headers: { etag: object.httpEtag } });
 * ```
 */
export class ObjectStorage {
  readonly #bucket: R2Bucket;

  constructor(bucket: R2Bucket) {
    this.#bucket = bucket;
  }

  /** The underlying binding. */
  get raw(): R2Bucket {
    return this.#bucket;
  }

  /**
   * Stores the object and returns its metadata, or null on failure: an
   * `onlyIf` precondition that does not hold, or an upload R2 rejects (an
   * invalid key, a stream of unknown length, …). The reason is logged.
   */
  async put(
    key: string,
    value: ReadableStream | ArrayBuffer | ArrayBufferView | string | Blob | null,
    options?: ObjectPutOptions,
  ): Promise<StoredObject | null> {
    try {
      return await this.#bucket.put(key, value, options);
    } catch (err) {
      console.warn(`ObjectStorage.put(${JSON.stringify(key)}) failed:`, err instanceof Error ? err.message : err);
      return null;
    }
  }

  /** The object with its body, or null when the key is absent. */
  get(key: string, options?: R2GetOptions): Promise<StoredObjectBody | null> {
    return this.#bucket.get(key, options) as Promise<StoredObjectBody | null>;
  }

  /** Deletes one key or up to 1000 keys at once; absent keys are ignored. */
  delete(keys: string | string[]): Promise<void> {
    return this.#bucket.delete(keys);
  }

  /** One page of objects; pass the returned `cursor` back while `truncated` is true. */
  list(options?: ObjectListOptions): Promise<StoredObjectList> {
    return this.#bucket.list(options);
  }

  /** Metadata only, or null when the key is absent. */
  head(key: string): Promise<StoredObject | null> {
    return this.#bucket.head(key);
  }
}
