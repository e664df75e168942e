/**
 * @module
 * `ServiceClient`: service-to-service calls over a service binding (Fetcher).
 * REST helpers send to `http://service{path}` with JSON bodies; `call` is the
 * JSON-RPC-over-HTTP convention `POST /rpc/{method}` with `{ args }`. It never
 * follows a path to another host, and never returns a non-2xx `call` as data:
 * that is a `ServiceCallError` carrying method, status and body.
 */
import { BindingError } from "../errors";

/** Any request-init field except `method` (the helper decides the method). */
export type ServiceFetchOptions = Omit<RequestInit, "method">;

/** The base every path is resolved against; the host is never sent anywhere. */
export const SERVICE_ORIGIN = "http://service";

/** A `call` answered with a non-2xx status. */
export class ServiceCallError extends Error {
  override name = "ServiceCallError";
  readonly method: string;
  readonly status: number;
  readonly body: string;

  constructor(method: string, status: number, body: string) {
    super(`Service call "${method}" failed with status ${status}`);
    this.method = method;
    this.status = status;
    this.body = body;
  }
}

/**
 * @example
 * ```ts
 * const users = new ServiceClient(env.USERS);
 * const res = await users.post("/users", { email: "ada@example.com" });
 * const total = await users.call<number>("countUsers", { active: true });
 * ```
 */
export class ServiceClient {
  readonly #fetcher: Fetcher;

  constructor(fetcher: Fetcher) {
    this.#fetcher = fetcher;
  }

  /** The underlying binding. */
  get raw(): Fetcher {
    return this.#fetcher;
  }

  /** Low-level fetch. A path (`/x`) is resolved against `http://service`. */
  fetch(url: string, init?: RequestInit): Promise<Response> {
    return this.#fetcher.fetch(url.startsWith("/") ? SERVICE_ORIGIN + url : url, init);
  }

  get(path: string, options?: ServiceFetchOptions): Promise<Response> {
    return this.#send("GET", path, undefined, options);
  }

  /** POST with `JSON.stringify(body)` and `Content-Type: application/json` (no body when undefined). */
  post(path: string, body?: unknown, options?: ServiceFetchOptions): Promise<Response> {
    return this.#send("POST", path, body, options);
  }

  put(path: string, body?: unknown, options?: ServiceFetchOptions): Promise<Response> {
    return this.#send("PUT", path, body, options);
  }

  patch(path: string, body?: unknown, options?: ServiceFetchOptions): Promise<Response> {
    return this.#send("PATCH", path, body, options);
  }

  delete(path: string, options?: ServiceFetchOptions): Promise<Response> {
    return this.#send("DELETE", path, undefined, options);
  }

  /**
   * POSTs `{ args }` to `/rpc/{method}` and returns the parsed JSON answer
   * (undefined for an empty 2xx body). Non-2xx → `ServiceCallError`; a 2xx body
   * that is not JSON → `BindingError("invalid_response")`.
   */
  async call<T = unknown>(method: string, ...args: unknown[]): Promise<T> {
    if (typeof method !== "string" || method === "") {
      throw new BindingError("invalid_argument", { message: "ServiceClient.call: method must be a non-empty string" });
    }
    const res = await this.#send("POST", `/rpc/${encodeURIComponent(method)}`, { args });
    const text = await res.text();
    if (!res.ok) throw new ServiceCallError(method, res.status, text);
    if (text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      const type = res.headers.get("content-type") ?? "no content-type";
      throw new BindingError("invalid_response", {
        message: `ServiceClient.call("${method}"): status ${res.status} answered a body that is not JSON (${type}, ${text.length} bytes)`,
      });
    }
  }

  async #send(method: string, path: string, body: unknown, options?: ServiceFetchOptions): Promise<Response> {
    if (typeof path !== "string" || !path.startsWith("/")) {
      throw new BindingError("invalid_argument", {
        message: `ServiceClient.${method.toLowerCase()}: path must start with "/" (got ${JSON.stringify(path)})`,
      });
    }
    const init: RequestInit = { ...options, method };
    if (body !== undefined) {
      let json: string | undefined;
      try {
        json = JSON.stringify(body);
      } catch {
        json = undefined;
      }
      if (json === undefined) {
        throw new BindingError("invalid_argument", {
          message: `ServiceClient.${method.toLowerCase()}("${path}"): body is not JSON-serialisable`,
        });
      }
      const headers = new Headers(options?.headers);
      headers.set("Content-Type", "application/json");
      init.headers = headers;
      init.body = json;
    }
    return this.#fetcher.fetch(SERVICE_ORIGIN + path, init);
  }
}
