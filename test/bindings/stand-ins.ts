import { env } from "cloudflare:workers";
/**
 * Stand-ins for the three bindings miniflare offers only as remote bindings
 * (Workers AI, Vectorize, dispatch namespaces). Each follows the interface
 * of the real binding in @cloudflare/workers-types and the behaviour its
 * documentation describes; the dispatch stand-in hands back real local
 * workers (service bindings to auxiliary workers) and, like the runtime,
 * returns a fetcher whose `fetch` fails with "Worker not found." for unknown names.
 */

/** The part of `Ai` that AIClient uses, answering like the documented model families. */
export class AiStandIn {
  readonly calls: { model: string; inputs: Record<string, unknown>; options?: AiOptions }[] = [];

  async run(model: string, inputs: Record<string, unknown>, options?: AiOptions): Promise<unknown> {
    this.calls.push({ model, inputs, options });
    if (options?.returnRawResponse) return Response.json({ result: { response: "raw" } });
    if (inputs.stream === true) {
      return new Response('data: {"response":"hi"}\n\ndata: [DONE]\n\n').body;
    }
    switch (model) {
      case "@cf/meta/llama-3.1-8b-instruct":
        return { response: `echo: ${String(inputs.prompt)}`, usage: { prompt_tokens: 3, completion_tokens: 2 } };
      case "@hf/nousresearch/hermes-2-pro-mistral-7b":
        return { response: null, tool_calls: [{ name: "weather", arguments: { city: "Paris" } }] };
      case "@cf/stabilityai/stable-diffusion-xl-base-1.0":
        return new Response(Uint8Array.of(0x89, 0x50, 0x4e, 0x47)).body;
      case "@cf/black-forest-labs/flux-1-schnell":
        return { image: btoa(String.fromCharCode(0x89, 0x50, 0x4e, 0x47, 1, 2)) };
      case "@cf/baai/bge-small-en-v1.5":
        return { shape: [1, 3], data: [[0.1, 0.2, 0.3]] };
      default:
        throw new Error(`AiError: No such model ${model} or task`);
    }
  }
}

/** An in-memory Vectorize index (v2 API: mutations answer `{ mutationId }`), cosine similarity. */
export class VectorizeStandIn implements Vectorize {
  readonly #vectors = new Map<string, VectorizeVector>();
  #mutations = 0;

  constructor(readonly dimensions: number) {}

  async describe(): Promise<VectorizeIndexInfo> {
    return {
      vectorCount: this.#vectors.size,
      dimensions: this.dimensions,
      processedUpToDatetime: 0,
      processedUpToMutation: this.#mutations,
    };
  }

  async query(vector: VectorFloatArray | number[], options: VectorizeQueryOptions = {}): Promise<VectorizeMatches> {
    if (vector.length !== this.dimensions)
      throw new Error(`VECTOR_QUERY_ERROR: expected ${this.dimensions} dimensions`);
    const topK = options.topK ?? 5;
    const scored = [...this.#vectors.values()]
      .map((v) => ({ v, score: cosine(Array.from(vector), Array.from(v.values)) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, topK);
    const matches = scored.map(({ v, score }) => ({
      id: v.id,
      score,
      ...(options.returnValues ? { values: Array.from(v.values) } : {}),
      ...(options.returnMetadata && options.returnMetadata !== "none" && v.metadata ? { metadata: v.metadata } : {}),
    }));
    return { matches, count: matches.length };
  }

  async queryById(vectorId: string, options?: VectorizeQueryOptions): Promise<VectorizeMatches> {
    const vector = this.#vectors.get(vectorId);
    return vector ? this.query(Array.from(vector.values), options) : { matches: [], count: 0 };
  }

  async insert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    for (const v of vectors) if (this.#vectors.has(v.id)) throw new Error(`VECTOR_INSERT_ERROR: id ${v.id} exists`);
    return this.upsert(vectors);
  }

  async upsert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    for (const v of vectors) {
      if (v.values.length !== this.dimensions) throw new Error(`VECTOR_UPSERT_ERROR: expected ${this.dimensions}`);
      this.#vectors.set(v.id, v);
    }
    return { mutationId: `mutation-${++this.#mutations}` };
  }

  async deleteByIds(ids: string[]): Promise<VectorizeAsyncMutation> {
    for (const id of ids) this.#vectors.delete(id);
    return { mutationId: `mutation-${++this.#mutations}` };
  }

  async getByIds(ids: string[]): Promise<VectorizeVector[]> {
    return ids.flatMap((id) => this.#vectors.get(id) ?? []);
  }
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / (Math.sqrt(na) * Math.sqrt(nb) || 1);
}

/** What the runtime hands back for a script the namespace does not hold. */
class MissingWorker {
  async fetch(): Promise<Response> {
    throw new Error("Worker not found.");
  }
  connect(): Socket {
    throw new Error("Worker not found.");
  }
}

/** A dispatch namespace over real local workers, recording every `get`. */
export class DispatchNamespaceStandIn implements DispatchNamespace {
  readonly calls: { name: string; args?: Record<string, unknown>; options?: DynamicDispatchOptions }[] = [];

  constructor(
    readonly scripts: Record<string, Fetcher>,
    /** "fetch": unknown names fail on fetch (the runtime); "get": `get` throws (the typed contract). */
    readonly notFound: "fetch" | "get" = "fetch",
  ) {}

  get(name: string, args?: Record<string, unknown>, options?: DynamicDispatchOptions): Fetcher {
    this.calls.push({ name, args, options });
    const script = this.scripts[name];
    if (script) return script;
    if (this.notFound === "get") throw new Error("Worker not found.");
    return new MissingWorker() as unknown as Fetcher;
  }
}

/**
 * One binding of every kind the registration knows (the local ones from this project's env, the
 * remote-only ones as stand-ins) and a var, a JSON var and a secret, which are not bindings.
 */
export function oneOfEachBinding() {
  return {
    DB: env.DB,
    ANALYTICS: env.ANALYTICS,
    KV: env.KV,
    CACHE: env.CACHE,
    FILES: env.FILES,
    JOBS: env.JOBS,
    AI: new AiStandIn() as unknown as Ai,
    VECTORS: new VectorizeStandIn(3),
    COUNTERS: env.COUNTERS,
    PG: env.PG,
    DISPATCHER: new DispatchNamespaceStandIn({ alpha: env.CUSTOMER_ALPHA }),
    AUX: env.AUX,
    APP_NAME: env.APP_NAME,
    FEATURE_FLAGS: env.FEATURE_FLAGS,
    API_SECRET: "sk_live_not_a_binding",
  };
}
