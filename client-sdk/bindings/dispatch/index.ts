/**
 * @module
 * `DispatchNamespaceClient`: Workers for Platforms dispatch. Maps the spec's
 * `DispatchOptions` onto `DispatchNamespace.get(name, args, { limits, outbound })`:
 * `outboundArgs` become the outbound Worker's parameters and `trust` selects
 * the per-call limits. A script that does not exist fails with an error naming
 * it, whether the runtime reports that from `get` or from the later `fetch`.
 */
import { BindingError } from "../errors";
import { ServiceClient } from "../service";

/** Spec: DispatchOptions. */
export interface DispatchOptions {
  /** "untrusted" (default) applies `untrustedLimits`; "trusted" runs without per-call limits. */
  trust?: "untrusted" | "trusted";
  /** Values for the outbound Worker's declared `parameters` (see `outboundParameters`). */
  outboundArgs?: unknown[];
}

export interface DispatchNamespaceClientOptions {
  /**
   * Names of the outbound Worker's `parameters`, matched position by position
   * with `outboundArgs`. Without it, the array is passed whole as `args`.
   */
  outboundParameters?: readonly string[];
  /** CPU and subrequest limits for untrusted dispatches (none by default). */
  untrustedLimits?: DynamicDispatchLimits;
}

const NOT_FOUND = /^Worker not found/i;

/**
 * @example
 * ```ts
 * const tenants = new DispatchNamespaceClient(env.DISPATCHER, { untrustedLimits: { cpuMs: 50 } });
 * return tenants.dispatch(`tenant-${slug}`).fetch(request);
 * const total = await tenants.dispatchClient("billing", { trust: "trusted" }).call<number>("total");
 * ```
 */
export class DispatchNamespaceClient {
  readonly #namespace: DispatchNamespace;
  readonly #options: DispatchNamespaceClientOptions;

  constructor(namespace: DispatchNamespace, options: DispatchNamespaceClientOptions = {}) {
    this.#namespace = namespace;
    this.#options = options;
  }

  /** The underlying binding. */
  get raw(): DispatchNamespace {
    return this.#namespace;
  }

  /**
   * The fetcher of the customer script `scriptName`. Its `fetch` rejects with
   * `BindingError("script_not_found")` naming the script when it does not exist;
   * RPC methods and `connect` reach the runtime's fetcher unchanged.
   */
  dispatch(scriptName: string, options: DispatchOptions = {}): Fetcher {
    if (typeof scriptName !== "string" || scriptName === "") {
      throw new BindingError("invalid_argument", {
        message: "DispatchNamespaceClient: scriptName must be a non-empty string",
      });
    }
    let fetcher: Fetcher;
    try {
      fetcher = this.#namespace.get(scriptName, undefined, this.#dynamicOptions(options));
    } catch (err) {
      throw namedError(scriptName, err);
    }
    return withNamedErrors(fetcher, scriptName);
  }

  /** Same as `dispatch`, wrapped in a `ServiceClient`. */
  dispatchClient(scriptName: string, options?: DispatchOptions): ServiceClient {
    return new ServiceClient(this.dispatch(scriptName, options));
  }

  #dynamicOptions(options: DispatchOptions): DynamicDispatchOptions | undefined {
    const out: DynamicDispatchOptions = {};
    const trust = options.trust ?? "untrusted";
    if (trust !== "untrusted" && trust !== "trusted") {
      throw new BindingError("invalid_argument", {
        message: `DispatchNamespaceClient: unknown trust "${String(trust)}"`,
      });
    }
    if (trust === "untrusted" && this.#options.untrustedLimits) out.limits = { ...this.#options.untrustedLimits };
    if (options.outboundArgs !== undefined) out.outbound = this.#outbound(options.outboundArgs);
    return Object.keys(out).length > 0 ? out : undefined;
  }

  #outbound(args: unknown[]): Record<string, unknown> {
    if (!Array.isArray(args)) {
      throw new BindingError("invalid_argument", { message: "DispatchNamespaceClient: outboundArgs must be an array" });
    }
    const names = this.#options.outboundParameters;
    if (!names) return { args };
    if (args.length > names.length) {
      throw new BindingError("invalid_argument", {
        message: `DispatchNamespaceClient: ${args.length} outboundArgs but only ${names.length} outboundParameters (${names.join(", ")})`,
      });
    }
    return Object.fromEntries(args.map((value, i) => [names[i]!, value]));
  }
}

function namedError(scriptName: string, err: unknown): unknown {
  if (err instanceof Error && NOT_FOUND.test(err.message)) {
    return new BindingError("script_not_found", {
      status: 404,
      message: `No script named "${scriptName}" in the dispatch namespace`,
      cause: err,
    });
  }
  return err;
}

/** The runtime's fetcher with `fetch` rethrowing "Worker not found" as an error that names the script. */
function withNamedErrors(fetcher: Fetcher, scriptName: string): Fetcher {
  const fetch: Fetcher["fetch"] = async (input, init) => {
    try {
      return await fetcher.fetch(input, init);
    } catch (err) {
      throw namedError(scriptName, err);
    }
  };
  return new Proxy(fetcher, {
    get(target, property) {
      if (property === "fetch") return fetch;
      const value: unknown = Reflect.get(target, property);
      // Methods of the fetcher's class (`connect`) need their receiver; RPC properties
      // (any other name) are already bound to the stub, and even `.bind` on them is an RPC call.
      return typeof value === "function" && definedByClass(target, property)
        ? Function.prototype.bind.call(value, target)
        : value;
    },
  });
}

function definedByClass(target: object, property: string | symbol): boolean {
  for (let proto = Object.getPrototypeOf(target); proto; proto = Object.getPrototypeOf(proto)) {
    if (Object.getOwnPropertyDescriptor(proto, property)) return true;
  }
  return false;
}
