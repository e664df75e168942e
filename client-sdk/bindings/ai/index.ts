/**
 * @module
 * `AIClient`: the spec's wrapper over a Workers AI binding. `run` returns what
 * the spec promises: text generation as a string, image generation as an
 * ArrayBuffer; everything else (embeddings, classifications, streams asked for
 * with `stream: true`, raw responses) exactly as the binding returned it.
 * It never retries and never logs prompts or outputs.
 */

/** The `run` signature every AI binding shares, whatever its model catalogue. */
/** The spec's `AiOptions` (gateway, streaming, …), for typing calls. */
type RunOptions = AiOptions;

export type { RunOptions as AiOptions };

type Run = (model: string, inputs: Record<string, unknown>, options?: AiOptions) => Promise<unknown>;

/**
 * @example
 * ```ts
 * const ai = new AIClient(env.AI);
 * const answer = await ai.run("@cf/meta/llama-3.1-8b-instruct", { prompt: "Say hi" }); // string
 * const png = await ai.run<ArrayBuffer>("@cf/black-forest-labs/flux-1-schnell", { prompt: "a gate" });
 * const { data } = await ai.run<{ data: number[][] }>("@cf/baai/bge-small-en-v1.5", { text: ["hi"] });
 * ```
 */
export class AIClient {
  readonly #ai: Ai;

  constructor(ai: Ai) {
    this.#ai = ai;
  }

  /** The underlying binding. */
  get raw(): Ai {
    return this.#ai;
  }

  /**
   * Runs `model` on `inputs`. Normalised outputs: `{ response: string }` (text
   * generation without tool calls) → the string; a byte stream (image models)
   * or `{ image: base64 }` → an ArrayBuffer. Untouched: `stream: true`,
   * `returnRawResponse`, `websocket` and `queueRequest` results, and any other shape.
   */
  async run<T = string>(model: string, inputs: Record<string, unknown>, options?: AiOptions): Promise<T> {
    const output = await (this.#ai as unknown as { run: Run }).run(model, inputs, options);
    if (inputs.stream === true || options?.returnRawResponse || options?.websocket || options?.queueRequest) {
      return output as T;
    }
    return (await normalise(output)) as T;
  }
}

async function normalise(output: unknown): Promise<unknown> {
  if (output instanceof ReadableStream) return new Response(output).arrayBuffer();
  if (typeof output !== "object" || output === null || Array.isArray(output)) return output;
  const record = output as Record<string, unknown>;
  const toolCalls = record.tool_calls;
  if (typeof record.response === "string" && !(Array.isArray(toolCalls) && toolCalls.length > 0)) {
    return record.response;
  }
  if (typeof record.image === "string" && Object.keys(record).length === 1) return base64ToArrayBuffer(record.image);
  return output;
}

function base64ToArrayBuffer(base64: string): ArrayBuffer {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}
