/**
 * @module
 * `PlatformServiceProvider`: registers a wrapper for every binding in the
 * `env` given to `Application.create(env)`, keyed by binding name, and by
 * wrapper class when exactly one binding has that kind (two or more: resolving
 * the class throws `ContainerError("ambiguous")` listing them). Wrappers are
 * built on first resolve; it never replaces an entry another provider made.
 */
import { AIClient } from "../bindings/ai";
import { DispatchNamespaceClient } from "../bindings/dispatch";
import { StatefulObjectClient } from "../bindings/durable-object";
import { PooledDbClient, type PooledDbDriver } from "../bindings/hyperdrive";
import { KVStore } from "../bindings/kv";
import { QueueSender } from "../bindings/queue";
import { ObjectStorage } from "../bindings/r2";
import { ServiceClient } from "../bindings/service";
import { SqlDatabase } from "../bindings/sql";
import { VectorStore } from "../bindings/vectorize";
import type { Application } from "../core/application";
import { type Constructor, ContainerError } from "../core/container";
import { ServiceProvider } from "../core/provider";
import { type BindingKind, detectBinding } from "./detect";

export { BINDING_CONVENTIONS, type BindingKind, detectBinding } from "./detect";

/** The wrapper class of each binding kind. */
export const BINDING_WRAPPERS = {
  objectStorage: ObjectStorage,
  kv: KVStore,
  sql: SqlDatabase,
  queue: QueueSender,
  ai: AIClient,
  vector: VectorStore,
  statefulObject: StatefulObjectClient,
  pooledDb: PooledDbClient,
  dispatch: DispatchNamespaceClient,
  service: ServiceClient,
} as const satisfies Record<BindingKind, Constructor<unknown>>;

type Wrap = Constructor<object>;

export interface PlatformServiceProviderOptions {
  /**
   * The driver every detected Hyperdrive binding's `PooledDbClient` queries with, e.g.
   * `postgresDriver` from `gatehouse-workers/hyperdrive`. Default: the client's built-in one.
   */
  pooledDbDriver?: PooledDbDriver;
}

/**
 * @example
 * ```ts
 * const app = Application.create(env, { providers: [new PlatformServiceProvider()] });
 * app.container.resolve(KVStore);          // the only KV namespace in env
 * app.container.resolve<KVStore>("CACHE"); // a KV namespace by binding name
 * ```
 */
export class PlatformServiceProvider<E extends object = Record<string, unknown>> extends ServiceProvider<E> {
  readonly #options: PlatformServiceProviderOptions;

  constructor(options: PlatformServiceProviderOptions = {}) {
    super();
    this.#options = options;
  }

  override register(app: Application<E>): void {
    const { pooledDbDriver } = this.#options;
    const byWrapper = new Map<Wrap, string[]>();
    for (const [name, value] of Object.entries(app.env)) {
      const kind = detectBinding(name, value);
      if (!kind || app.container.has(name)) continue;
      const Wrapper: Wrap = BINDING_WRAPPERS[kind];
      const build = Wrapper as unknown as new (binding: unknown, options?: object) => object;
      const options = kind === "pooledDb" && pooledDbDriver ? { driver: pooledDbDriver } : undefined;
      app.container.singleton(name, () => new build(value, options));
      byWrapper.set(Wrapper, [...(byWrapper.get(Wrapper) ?? []), name]);
    }
    for (const [Wrapper, names] of byWrapper) {
      if (app.container.has(Wrapper)) continue;
      const [only] = names;
      if (names.length === 1 && only !== undefined) {
        app.container.singleton(Wrapper, (c) => c.resolve<object>(only));
      } else {
        const list = names.map((n) => `"${n}"`).join(", ");
        app.container.singleton(Wrapper, () => {
          throw new ContainerError("ambiguous", {
            message: `Several bindings are a ${Wrapper.name} (${list}); resolve one by its binding name`,
          });
        });
      }
    }
  }
}
