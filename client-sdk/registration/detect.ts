/**
 * @module
 * Which kind of binding an `env` value is. The runtime class decides when it is
 * one of the runtime's (constructor names RPC proxies cannot fake); RPC proxies
 * (service bindings, Durable Object stubs answer every property name with a
 * function) are never duck-typed; then the naming conventions (DB, KV, FILES,
 * AI), then duck typing in the spec's order. Plain values (vars, secrets, JSON)
 * are never bindings.
 */

/** The binding kinds of the spec's detection table, in its order. */
export type BindingKind =
  | "objectStorage"
  | "kv"
  | "sql"
  | "queue"
  | "ai"
  | "vector"
  | "statefulObject"
  | "pooledDb"
  | "dispatch"
  | "service";

/** Spec: binding names that decide the wrapper by themselves. */
export const BINDING_CONVENTIONS: Readonly<Record<string, BindingKind>> = {
  DB: "sql",
  KV: "kv",
  FILES: "objectStorage",
  AI: "ai",
};

/**
 * Constructor names of the runtime's binding classes (workerd's C++ classes and
 * its internal JS wrappers for D1, AI and Vectorize). `null`: a runtime object
 * that is none of the spec's bindings (a Durable Object stub, RPC stubs, the
 * test pool's internals) and is never registered.
 */
const RUNTIME_CLASSES: Readonly<Record<string, BindingKind | null>> = {
  R2Bucket: "objectStorage",
  KvNamespace: "kv",
  D1Database: "sql",
  WorkerQueue: "queue",
  Ai: "ai",
  VectorizeIndexImpl: "vector",
  DurableObjectNamespace: "statefulObject",
  Hyperdrive: "pooledDb",
  Fetcher: "service",
  DurableObject: null,
  RpcStub: null,
  RpcPromise: null,
  RpcProperty: null,
  ColoLocalActorNamespace: null,
  UnsafeEval: null,
};

/** A property name nothing defines: only an RPC proxy answers it with a function. */
const PROBE = "__gatehouse_binding_probe__";

type Members = Record<string, unknown>;

const hasFunctions = (value: Members, names: readonly string[]) => names.every((n) => typeof value[n] === "function");

/** Duck typing, in the spec's order: more specific shapes first (R2 also has get/put/delete/list). */
const SHAPES: readonly [BindingKind, (value: Members) => boolean][] = [
  ["objectStorage", (v) => hasFunctions(v, ["head", "get", "put", "delete", "list", "createMultipartUpload"])],
  ["kv", (v) => hasFunctions(v, ["get", "getWithMetadata", "put", "delete", "list"])],
  ["sql", (v) => hasFunctions(v, ["prepare", "batch", "exec"])],
  ["queue", (v) => hasFunctions(v, ["send", "sendBatch"])],
  ["ai", (v) => hasFunctions(v, ["run"])],
  ["vector", (v) => hasFunctions(v, ["query", "insert", "upsert", "deleteByIds"])],
  ["statefulObject", (v) => hasFunctions(v, ["idFromName", "idFromString", "newUniqueId", "get"])],
  ["pooledDb", (v) => typeof v.connectionString === "string" && hasFunctions(v, ["connect"])],
  ["dispatch", (v) => hasFunctions(v, ["get"]) && !["set", "put", "fetch"].some((n) => typeof v[n] === "function")],
  ["service", (v) => hasFunctions(v, ["fetch"])],
];

/** Arrays and plain objects without methods (JSON vars): configuration, never a binding. */
function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return !Object.values(value).some((v) => typeof v === "function");
}

/** The kind its runtime class proves; null for known non-bindings; undefined when the class is not the runtime's. */
function runtimeKind(value: object): BindingKind | null | undefined {
  const name: unknown = Object.getPrototypeOf(value)?.constructor?.name;
  if (typeof name !== "string" || !Object.hasOwn(RUNTIME_CLASSES, name)) return undefined;
  return RUNTIME_CLASSES[name];
}

/** True for RPC proxies (service bindings, stubs): they answer any property name with a function. */
function answersAnyName(value: Members): boolean {
  try {
    return typeof value[PROBE] === "function";
  } catch {
    return false;
  }
}

/**
 * The kind of the binding `name` holding `value`, or null when it is not one
 * of the spec's bindings.
 *
 * @example
 * ```ts
 * detectBinding("SESSIONS", env.SESSIONS); // "kv"
 * detectBinding("API_URL", "https://…");   // null
 * ```
 */
export function detectBinding(name: string, value: unknown): BindingKind | null {
  if (typeof value !== "object" || value === null) return null;
  const object = value as Members;
  const proven = runtimeKind(object);
  if (proven !== undefined) return proven;
  if (answersAnyName(object)) return typeof object.fetch === "function" ? "service" : null;
  if (isPlainData(object)) return null;
  const convention = Object.hasOwn(BINDING_CONVENTIONS, name) ? BINDING_CONVENTIONS[name] : undefined;
  if (convention) return convention;
  for (const [kind, matches] of SHAPES) if (matches(object)) return kind;
  return null;
}
