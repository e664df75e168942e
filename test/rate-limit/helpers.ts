/**
 * Test helpers: a manual clock, unique keys (module state and storage
 * outlive a single test), and KV bindings that forward to the real local
 * namespace while counting calls, or that fail the way KV fails under load.
 */
import { CLOCK_BASE } from "./worker";

export { CLOCK_BASE };

export interface ManualClock {
  (): number;
  advance(ms: number): void;
  set(ms: number): void;
}

/** A clock that only moves when told; starts `offset` ms after a window-aligned instant. */
export function manualClock(offset = 0): ManualClock {
  let now = CLOCK_BASE + offset;
  const clock = (() => now) as ManualClock;
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (ms) => {
    now = ms;
  };
  return clock;
}

let counter = 0;
/** A key no other test uses. */
export function uniqueKey(label = "key"): string {
  counter++;
  return `${label}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

export interface KVCalls {
  get: number;
  put: number;
  puts: { key: string; value: string; ttl: number | undefined }[];
}

/**
 * The real local namespace seen through a separate object, as another
 * isolate would see it: limiters keep their in-isolate state per binding
 * object, so each of these is one simulated isolate. Counts every call.
 */
export function isolateView(kv: KVNamespace): { binding: KVNamespace; calls: KVCalls } {
  const calls: KVCalls = { get: 0, put: 0, puts: [] };
  const binding = {
    get: (key: string, type?: "text") => {
      calls.get++;
      return kv.get(key, type ?? "text");
    },
    getWithMetadata: (key: string) => kv.getWithMetadata(key),
    put: (key: string, value: string, options?: KVNamespacePutOptions) => {
      calls.put++;
      calls.puts.push({ key, value, ttl: options?.expirationTtl });
      return kv.put(key, value, options);
    },
    delete: (key: string) => kv.delete(key),
    list: (options?: KVNamespaceListOptions) => kv.list(options),
  };
  return { binding: binding as unknown as KVNamespace, calls };
}

/** A namespace whose reads or writes fail as KV does when a key is written too often. */
export function failingKV(kv: KVNamespace, fail: "get" | "put"): KVNamespace {
  const view = isolateView(kv).binding;
  const error = () => Promise.reject(new Error("KV PUT failed: 429 Too Many Requests"));
  return { ...view, [fail]: error } as KVNamespace;
}

/** A logger that records what limiters log. */
export function recordingLogger(): {
  logger: (message: string, error: unknown) => void;
  entries: { message: string; error: unknown }[];
} {
  const entries: { message: string; error: unknown }[] = [];
  return { logger: (message, error) => entries.push({ message, error }), entries };
}
