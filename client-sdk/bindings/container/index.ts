/**
 * @module
 * `ContainerClient`: named container instances behind a Durable Object
 * namespace (a class built on `@cloudflare/containers`, e.g. `GatehouseContainer`
 * from `gatehouse-workers/containers`). One instance per name (`idFromName`);
 * `warmup` starts an instance by asking for `/health` and never throws.
 */
import { BindingError } from "../errors";

/** Spec: ContainerSendOptions. */
export interface ContainerSendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: BodyInit | null;
}

/** The origin of requests to an instance; the container sees only the path. */
export const CONTAINER_ORIGIN = "http://container";

/**
 * @example
 * ```ts
 * const renderers = new ContainerClient(env.RENDERER);
 * ctx.waitUntil(renderers.warmup("tenant-42"));
 * const res = await renderers.send("tenant-42", "/render", { method: "POST", body: html });
 * ```
 */
export class ContainerClient<T extends Rpc.DurableObjectBranded | undefined = undefined> {
  readonly #namespace: DurableObjectNamespace<T>;

  constructor(namespace: DurableObjectNamespace<T>) {
    this.#namespace = namespace;
  }

  /** The underlying binding. */
  get raw(): DurableObjectNamespace<T> {
    return this.#namespace;
  }

  /** The stub of the instance named `name`. */
  getStub(name: string): DurableObjectStub<T> {
    return this.#namespace.get(this.#namespace.idFromName(name));
  }

  /** An HTTP request to `path` (starting with "/") on the instance named `name`. */
  async send(name: string, path: string, options: ContainerSendOptions = {}): Promise<Response> {
    if (typeof path !== "string" || !path.startsWith("/")) {
      throw new BindingError("invalid_argument", {
        message: `ContainerClient.send: path must start with "/" (got ${JSON.stringify(path)})`,
      });
    }
    const { method = "GET", headers, body } = options;
    return this.getStub(name).fetch(CONTAINER_ORIGIN + path, { method, headers, body: body ?? null });
  }

  /** GET `/health` on the instance: true on 2xx; false on any other status or error. */
  async warmup(name: string): Promise<boolean> {
    try {
      const res = await this.send(name, "/health");
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }
}
