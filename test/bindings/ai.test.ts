/**
 * AIClient. Workers AI has no local implementation (miniflare offers it only
 * as a remote binding), so the binding is a stand-in (stand-ins.ts) that
 * follows `Ai.run(model, inputs, options)` and answers with the output shapes
 * the Workers AI documentation gives for each model family.
 */
import { AIClient } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";
import { AiStandIn } from "./stand-ins";

function client(): { ai: AIClient; binding: AiStandIn } {
  const binding = new AiStandIn();
  return { ai: new AIClient(binding as unknown as Ai), binding };
}

describe("AIClient", () => {
  it("exposes the raw binding", () => {
    const { ai, binding } = client();
    expect(ai.raw).toBe(binding);
  });

  it("passes model, inputs and options through to the binding", async () => {
    const { ai, binding } = client();
    await ai.run("@cf/meta/llama-3.1-8b-instruct", { prompt: "hi", max_tokens: 5 }, { gateway: { id: "gw" } });
    expect(binding.calls).toEqual([
      {
        model: "@cf/meta/llama-3.1-8b-instruct",
        inputs: { prompt: "hi", max_tokens: 5 },
        options: { gateway: { id: "gw" } },
      },
    ]);
  });

  it("returns text generation as a string", async () => {
    const { ai } = client();
    const answer: string = await ai.run("@cf/meta/llama-3.1-8b-instruct", { prompt: "Say hi" });
    expect(answer).toBe("echo: Say hi");
  });

  it("returns image generation as an ArrayBuffer (byte streams and base64 images)", async () => {
    const { ai } = client();
    const png = await ai.run<ArrayBuffer>("@cf/stabilityai/stable-diffusion-xl-base-1.0", { prompt: "a gate" });
    expect(png).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(png)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const flux = await ai.run<ArrayBuffer>("@cf/black-forest-labs/flux-1-schnell", { prompt: "a gate" });
    expect([...new Uint8Array(flux)]).toEqual([0x89, 0x50, 0x4e, 0x47, 1, 2]);
  });

  it("returns other outputs as the binding gave them", async () => {
    const { ai } = client();
    expect(await ai.run<{ data: number[][] }>("@cf/baai/bge-small-en-v1.5", { text: ["hi"] })).toEqual({
      shape: [1, 3],
      data: [[0.1, 0.2, 0.3]],
    });
    // Tool calls are not flattened into a string.
    const tools = await ai.run<{ tool_calls: unknown[] }>("@hf/nousresearch/hermes-2-pro-mistral-7b", {
      prompt: "weather?",
    });
    expect(tools.tool_calls).toHaveLength(1);
  });

  it("leaves streams asked for with stream: true and raw responses untouched", async () => {
    const { ai } = client();
    const stream = await ai.run<ReadableStream>("@cf/meta/llama-3.1-8b-instruct", { prompt: "hi", stream: true });
    expect(stream).toBeInstanceOf(ReadableStream);
    expect(await new Response(stream).text()).toContain("data: [DONE]");
    const raw = await ai.run<Response>("@cf/meta/llama-3.1-8b-instruct", { prompt: "hi" }, { returnRawResponse: true });
    expect(raw).toBeInstanceOf(Response);
  });

  it("lets the binding's errors through", async () => {
    const { ai } = client();
    await expect(ai.run("@cf/unknown/model", {})).rejects.toThrow(/No such model/);
  });
});
