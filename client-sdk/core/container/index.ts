/**
 * @module
 * A small typed dependency-injection container. Keys are classes, typed
 * `Token`s or binding names. It must never construct anything on `register`:
 * factories run on first `resolve` (singleton) or on every `resolve` (transient).
 */
import { GatehouseError } from "../errors";

/** A typed key for values that have no class of their own (interfaces, config). */
export class Token<T> {
  /** Phantom field so that `Token<A>` and `Token<B>` are not interchangeable. */
  declare readonly __type?: T;
  constructor(readonly description: string) {}
  toString(): string {
    return `Token(${this.description})`;
  }
}

/** Any class whose instances are `T`, abstract or not, whatever its constructor parameters (`never[]`: parameters are contravariant). */
export type Constructor<T> = abstract new (...args: never[]) => T;

/** What the container can be asked for. Strings are binding names (`env` keys). */
export type Key<T> = Token<T> | Constructor<T> | string;

export type Factory<T> = (container: Container) => T;
export type Lifetime = "singleton" | "transient";

export type ContainerErrorCode = "not_registered" | "circular_dependency" | "ambiguous";

export class ContainerError extends GatehouseError<ContainerErrorCode> {
  override name = "ContainerError";
}

interface Entry<T> {
  factory: Factory<T>;
  lifetime: Lifetime;
  value?: T;
  resolved: boolean;
}

/** Human-readable name of a key, for error messages. */
export function describeKey(key: Key<unknown>): string {
  if (typeof key === "string") return `"${key}"`;
  if (key instanceof Token) return key.toString();
  return key.name || "<anonymous class>";
}

/**
 * @example
 * ```ts
 * const Config = new Token<{ ttl: number }>("Config");
 * const c = new Container();
 * c.instance(Config, { ttl: 60 });
 * c.singleton(SessionManager, (c) => new SessionManager(c.resolve(KVStore).raw, "secret"));
 * c.resolve(SessionManager); // built once, then cached
 * ```
 */
export class Container {
  #entries = new Map<Key<unknown>, Entry<unknown>>();
  #resolving: Key<unknown>[] = [];

  /** One instance, built on first resolve. Re-registering replaces the entry. */
  singleton<T>(key: Key<T>, factory: Factory<T>): this {
    this.#entries.set(key, { factory, lifetime: "singleton", resolved: false });
    return this;
  }

  /** A new instance on every resolve. */
  transient<T>(key: Key<T>, factory: Factory<T>): this {
    this.#entries.set(key, { factory, lifetime: "transient", resolved: false });
    return this;
  }

  /** An already-built value. */
  instance<T>(key: Key<T>, value: T): this {
    this.#entries.set(key, { factory: () => value, lifetime: "singleton", value, resolved: true });
    return this;
  }

  has(key: Key<unknown>): boolean {
    return this.#entries.has(key);
  }

  /** Every registered key, in registration order. */
  keys(): Key<unknown>[] {
    return [...this.#entries.keys()];
  }

  resolve<T>(key: Token<T> | Constructor<T>): T;
  resolve<T = unknown>(key: string): T;
  resolve<T>(key: Key<T>): T {
    const entry = this.#entries.get(key) as Entry<T> | undefined;
    if (!entry) {
      throw new ContainerError("not_registered", {
        message: `Nothing is registered for ${describeKey(key)}`,
      });
    }
    if (entry.lifetime === "singleton" && entry.resolved) return entry.value as T;
    if (this.#resolving.includes(key)) {
      const chain = [...this.#resolving, key].map(describeKey).join(" -> ");
      throw new ContainerError("circular_dependency", { message: `Circular dependency: ${chain}` });
    }
    this.#resolving.push(key);
    try {
      const value = entry.factory(this);
      if (entry.lifetime === "singleton") {
        entry.value = value;
        entry.resolved = true;
      }
      return value;
    } finally {
      this.#resolving.pop();
    }
  }
}
