/**
 * The spec's option and helper types are exported by name from the subpath of their concern
 * (`gatehouse-workers/bindings`, `/rate-limit`, `/versioned-kv`), so users type their calls without
 * reaching into the runtime's globals (issue 15). Checked by `tsc` in `npm run check`.
 */
import type {
  AiOptions,
  ContainerSendOptions,
  DispatchOptions,
  KVListOptions,
  KVPutOptions,
  MessageSendRequest,
  QueueSendOptions,
  ServiceFetchOptions,
  VectorizeVector,
  VectorQueryOptions,
} from "gatehouse-workers/bindings";
import type { RateCheckRequest, RateCheckResponse, RateLimiterConfig } from "gatehouse-workers/rate-limit";
import type { VersionedKVOptions } from "gatehouse-workers/versioned-kv";
import { describe, expect, expectTypeOf, it } from "vitest";

describe("the spec's types, exported by name", () => {
  it("type the calls users write", () => {
    const vector: VectorizeVector = { id: "doc-1", values: [0.1, 0.2] };
    const query: VectorQueryOptions = { topK: 3, returnMetadata: true };
    const put: KVPutOptions = { expirationTtl: 60, metadata: { a: 1 } };
    const list: KVListOptions = { prefix: "p", limit: 10 };
    const send: QueueSendOptions = { delaySeconds: 1 };
    const batch: MessageSendRequest<{ n: number }> = { body: { n: 1 } };
    const dispatch: DispatchOptions = { trust: "untrusted" };
    const container: ContainerSendOptions = { method: "POST", body: null };
    const versioned: VersionedKVOptions = { contentTtl: 3600 };
    const limiter: RateLimiterConfig = { limit: 10, window: 60 };
    const fetchOptions: ServiceFetchOptions = { headers: { a: "b" } };
    const check: RateCheckRequest = { key: "k", limit: 1, window: 60 };
    const answer: RateCheckResponse = { allowed: true, remaining: 0 };
    const ai: AiOptions = {};
    expectTypeOf(vector.values).toEqualTypeOf<number[] | Float32Array | Float64Array>();
    expect([
      query,
      put,
      list,
      send,
      batch,
      dispatch,
      container,
      versioned,
      limiter,
      fetchOptions,
      check,
      answer,
      ai,
    ]).toHaveLength(13);
  });
});
