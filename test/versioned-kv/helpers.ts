/**
 * Test helpers: an independent SHA-256 (node:crypto, not WebCrypto as the
 * SDK uses) and a pass-through spy over the real KV binding that counts and
 * records operations (every call still reaches the local namespace).
 */
import { createHash } from "node:crypto";

export function referenceHash(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value), "utf8").digest("hex");
}

export interface Ops {
  reads: number;
  writes: number;
  deletes: number;
  /** Keys written, in order. */
  written: string[];
}

export function spy(kv: KVNamespace): { kv: KVNamespace; ops: Ops } {
  const ops: Ops = { reads: 0, writes: 0, deletes: 0, written: [] };
  const proxy = new Proxy(kv, {
    get(target, prop) {
      const original = Reflect.get(target, prop, target);
      if (typeof original !== "function") return original;
      return (...args: unknown[]) => {
        if (prop === "get" || prop === "getWithMetadata") ops.reads += Array.isArray(args[0]) ? args[0].length : 1;
        if (prop === "put") {
          ops.writes++;
          ops.written.push(String(args[0]));
        }
        if (prop === "delete") ops.deletes++;
        return original.apply(target, args);
      };
    },
  });
  return { kv: proxy, ops };
}

let counter = 0;
/** A key no other test uses. */
export function uniqueKey(prefix = "k"): string {
  return `${prefix}-${Date.now().toString(36)}-${counter++}`;
}
