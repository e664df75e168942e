/**
 * @module
 * The counting bindings of the cost bench: the real local bindings wrapped so every call the code
 * makes through them lands in the ledger, then goes on unchanged (same arguments, same answer,
 * same errors). KV: a read per key (a bulk read of N keys is N reads), a write per put, a delete
 * per delete, a list per list. Durable Object stubs: one request per RPC method call or `fetch`
 * (one RPC session each). Queue: one message per `send`, N per `sendBatch`. Service bindings and
 * outbound `fetch`: counted as subrequests, which are not billed. Wrappers are made once per
 * binding, so code that keys caches by binding object (the limiter's coalescer) sees one object.
 */
import { ledger } from "./ledger";

const wrappers = new WeakMap<object, object>();

function once<T extends object>(target: T, make: (target: T) => T): T {
  let wrapped = wrappers.get(target) as T | undefined;
  if (!wrapped) {
    wrapped = make(target);
    wrappers.set(target, wrapped);
    wrappers.set(wrapped, wrapped);
  }
  return wrapped;
}

/** A property of a native binding, with functions bound to it (workerd refuses a foreign `this`). */
function passthrough(target: object, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop, target);
  return typeof value === "function" ? value.bind(target) : value;
}

const keyCount = (keys: unknown) => (Array.isArray(keys) ? keys.length : 1);

export function countedKV(kv: KVNamespace): KVNamespace {
  return once(kv, (target) => {
    const counted: Record<string, (...args: never[]) => unknown> = {
      get: (key: unknown, ...rest: unknown[]) => {
        ledger.add("kvReads", keyCount(key));
        if (Array.isArray(key)) ledger.add("kvBulkReads");
        return (target.get as (...a: unknown[]) => unknown)(key, ...rest);
      },
      getWithMetadata: (key: unknown, ...rest: unknown[]) => {
        ledger.add("kvReads", keyCount(key));
        if (Array.isArray(key)) ledger.add("kvBulkReads");
        return (target.getWithMetadata as (...a: unknown[]) => unknown)(key, ...rest);
      },
      put: (...args: unknown[]) => {
        ledger.add("kvWrites");
        return (target.put as (...a: unknown[]) => unknown)(...args);
      },
      delete: (...args: unknown[]) => {
        ledger.add("kvDeletes");
        return (target.delete as (...a: unknown[]) => unknown)(...args);
      },
      list: (...args: unknown[]) => {
        ledger.add("kvLists");
        return (target.list as (...a: unknown[]) => unknown)(...args);
      },
    };
    return new Proxy(target, {
      get: (t, prop) => (typeof prop === "string" && prop in counted ? counted[prop] : passthrough(t, prop)),
    });
  });
}

/** Properties of a stub that are not calls into the object. */
const STUB_FIELDS = new Set<string | symbol>(["id", "name", "then"]);

function countedStub<T extends object>(stub: T): T {
  return new Proxy(stub, {
    get: (target, prop) => {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function" || typeof prop === "symbol" || STUB_FIELDS.has(prop)) return value;
      return (...args: unknown[]) => {
        ledger.add(prop === "fetch" ? "doFetches" : "doRpcCalls");
        return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
      };
    },
  });
}

export function countedNamespace<T extends DurableObjectNamespace>(namespace: T): T {
  return once(namespace, (target) => {
    const get = (...args: unknown[]) =>
      countedStub((target.get as (...a: unknown[]) => object)(...args)) as DurableObjectStub;
    const getByName = (...args: unknown[]) =>
      countedStub((target.getByName as (...a: unknown[]) => object)(...args)) as DurableObjectStub;
    return new Proxy(target, {
      get: (t, prop) => (prop === "get" ? get : prop === "getByName" ? getByName : passthrough(t, prop)),
    });
  });
}

export function countedQueue<T extends Queue>(queue: T): T {
  return once(queue, (target) => {
    const send = (...args: unknown[]) => {
      ledger.add("queueMessages");
      return (target.send as (...a: unknown[]) => unknown)(...args);
    };
    const sendBatch = (messages: Iterable<unknown>, ...rest: unknown[]) => {
      const list = [...messages];
      ledger.add("queueMessages", list.length);
      return (target.sendBatch as (...a: unknown[]) => unknown)(list, ...rest);
    };
    return new Proxy(target, {
      get: (t, prop) => (prop === "send" ? send : prop === "sendBatch" ? sendBatch : passthrough(t, prop)),
    });
  });
}

/**
 * A service binding (or an entrypoint of `exports`): every call through it is one subrequest. An
 * object, as a service binding in `env` is (an `exports` entrypoint is callable itself).
 */
export function countedService<T extends object>(service: T): T {
  return once(service, (target) => {
    const view = new Proxy(
      {},
      {
        get: (_, prop) => {
          const value = Reflect.get(target, prop, target);
          if (typeof value !== "function" || typeof prop === "symbol" || prop === "then") return value;
          return (...args: unknown[]) => {
            ledger.add("serviceCalls");
            return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
          };
        },
      },
    );
    return view as T;
  });
}

const isKV = (v: object): v is KVNamespace => "getWithMetadata" in v && "list" in v;
const isNamespace = (v: object): v is DurableObjectNamespace => "idFromName" in v && "get" in v;
const isQueue = (v: object): v is Queue => "sendBatch" in v && "send" in v;

/**
 * The env with every KV namespace, Durable Object namespace and Queue counted; the same object
 * for the same env (the auth worker builds one application per env object).
 */
export function countedEnv<E extends object>(env: E): E {
  return once(env, (target) => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(target)) {
      // Service bindings (and anything else that fetches) are left alone: RPC stubs answer every name.
      if (typeof value !== "object" || value === null || "fetch" in value) out[name] = value;
      else if (isKV(value)) out[name] = countedKV(value);
      else if (isNamespace(value)) out[name] = countedNamespace(value);
      else if (isQueue(value)) out[name] = countedQueue(value);
      else out[name] = value;
    }
    return out as E;
  });
}

/** The isolate's `fetch` before counting: the bench's own calls to the local provider use it. */
export const uncountedFetch: typeof fetch = globalThis.fetch.bind(globalThis);

/** Counts every outbound `fetch` of this isolate from now on (a subrequest, not billed). */
export function countOutboundFetch(): void {
  if ((globalThis.fetch as { counted?: boolean }).counted) return;
  const counting = Object.assign(
    (...args: Parameters<typeof fetch>) => {
      ledger.add("fetchSubrequests");
      return uncountedFetch(...args);
    },
    { counted: true },
  );
  globalThis.fetch = counting as typeof fetch;
}
