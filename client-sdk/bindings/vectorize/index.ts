/**
 * @module
 * `VectorStore`: the spec's wrapper over a Vectorize index. Mutations return
 * Vectorize's async mutation (`{ mutationId }`); `query` returns the matches.
 * Vectors are checked before they leave the Worker (string ids, finite
 * numbers, one dimension count per call), so a bad vector fails with a clear
 * error naming it instead of an opaque remote one. It never caches results.
 */
import { BindingError } from "../errors";

/** Options of `query`: `topK`, `returnMetadata`, plus Vectorize's `returnValues`, `namespace`, `filter`. */
export type VectorQueryOptions = VectorizeQueryOptions;

/** The spec's `VectorizeVector` (`id`, `values`, optional `metadata`/`namespace`), for typing calls. */
type SpecVector = VectorizeVector;

export type { SpecVector as VectorizeVector };

/**
 * @example
 * ```ts
 * const store = new VectorStore(env.VECTORS);
 * await store.upsert([{ id: "doc-1", values: embedding, metadata: { title: "Intro" } }]);
 * const { matches } = await store.query(embedding, { topK: 5, returnMetadata: true });
 * ```
 */
export class VectorStore {
  readonly #index: Vectorize;

  constructor(index: Vectorize) {
    this.#index = index;
  }

  /** The underlying binding. */
  get raw(): Vectorize {
    return this.#index;
  }

  /** Inserts new vectors; an id that already exists is an error in Vectorize. */
  async insert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    return this.#index.insert(checkVectors("insert", vectors));
  }

  /** Inserts or replaces vectors by id. */
  async upsert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    return this.#index.upsert(checkVectors("upsert", vectors));
  }

  /** The closest vectors to `vector`; `topK` defaults to Vectorize's own default (5). */
  async query(vector: number[], options?: VectorQueryOptions): Promise<VectorizeMatches> {
    checkValues("query", "the query vector", vector);
    return this.#index.query(vector, options);
  }

  /** Deletes vectors by id. */
  async deleteByIds(ids: string[]): Promise<VectorizeAsyncMutation> {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string" || id === "")) {
      throw invalid("deleteByIds", "ids must be non-empty strings");
    }
    return this.#index.deleteByIds(ids);
  }
}

function invalid(method: string, message: string): BindingError {
  return new BindingError("invalid_argument", { message: `VectorStore.${method}: ${message}` });
}

function checkValues(method: string, what: string, values: ArrayLike<number>): number {
  if (values === null || typeof values !== "object" || typeof values.length !== "number" || values.length === 0) {
    throw invalid(method, `${what} has no values`);
  }
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw invalid(method, `${what} has a non-finite value at position ${i}`);
  }
  return values.length;
}

function checkVectors(method: string, vectors: VectorizeVector[]): VectorizeVector[] {
  if (!Array.isArray(vectors)) throw invalid(method, "expected an array of vectors");
  let dimensions: number | undefined;
  for (const vector of vectors) {
    if (typeof vector?.id !== "string" || vector.id === "")
      throw invalid(method, "every vector needs a non-empty string id");
    const n = checkValues(method, `vector "${vector.id}"`, vector.values);
    if (dimensions !== undefined && n !== dimensions) {
      throw invalid(method, `vector "${vector.id}" has ${n} dimensions, the others ${dimensions}`);
    }
    dimensions = n;
  }
  return vectors;
}
