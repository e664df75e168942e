/**
 * @module
 * `Application.create(env, { providers })`: registers providers in order,
 * boots them in order, and is itself a Workers fetch handler. Unknown routes
 * answer 404 JSON; anything thrown answers through `errorResponse`, so no
 * stack or internal message ever reaches a client.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { Container, Token } from "../container";
import { errorResponse, jsonError } from "../errors";
import { inheritRequestValues, type Middleware } from "../middleware";

/**
 * Service providers: the unit of registration. `register` only puts factories into the container
 * (no I/O, no resolving of other providers' entries, since they may not be registered yet); `boot`
 * runs after every provider has registered and may resolve, add routes and middleware. Defined
 * beside `Application` (which runs them) so the two modules never import each other.
 */
export abstract class ServiceProvider<E extends object = Record<string, unknown>> {
  /** Registers factories. Runs for every provider, in order, before any `boot`. */
  abstract register(app: Application<E>): void;
  /** Adds routes and middleware. Runs in provider order after all `register` calls. */
  boot(_app: Application<E>): void {}
}

export interface ApplicationOptions<E extends object> {
  /** Registered, then booted, in this order. */
  providers?: readonly ServiceProvider<E>[];
  /** Global middleware, run in order before every route. */
  middleware?: readonly Middleware[];
}

/** The environment object the application was created with. */
export const EnvToken = new Token<object>("Env");

/** Hono environment of an application's router. */
export interface AppBindings<E extends object> {
  Bindings: E;
}

/**
 * @example
 * ```ts
 * const app = Application.create(env, { providers: [new PlatformServiceProvider()] });
 * app.hono.get("/", (c) => c.text("hello"));
 * export default { fetch: app.fetch };
 * ```
 */
export class Application<E extends object = Record<string, unknown>> implements ExportedHandler<E> {
  readonly container = new Container();
  readonly hono = new Hono<AppBindings<E>>();
  readonly env: E;

  protected constructor(env: E) {
    this.env = env;
    this.container.instance(EnvToken, env);
    this.hono.notFound((c) =>
      jsonError(404, "not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`),
    );
    this.hono.onError((err) => {
      if (err instanceof HTTPException) {
        return jsonError(err.status, "http_error", err.message || "Request failed");
      }
      return errorResponse(err);
    });
  }

  static create<E extends object>(env: E, options: ApplicationOptions<E> = {}): Application<E> {
    const app = new Application(env);
    const providers = options.providers ?? [];
    for (const middleware of options.middleware ?? []) app.use(middleware);
    for (const provider of providers) provider.register(app);
    for (const provider of providers) provider.boot(app);
    return app;
  }

  /**
   * A module-worker handler that builds the application once per `env`
   * object (workerd reuses it across requests in an isolate) instead of per request.
   *
   * @example
   * ```ts
   * export default Application.handler({
   *   providers: [new AuthServiceProvider()],
   *   setup: (app) => app.hono.get("/health", (c) => c.json({ ok: true })),
   * });
   * ```
   */
  static handler<E extends object>(
    options: ApplicationOptions<E> & { setup?: (app: Application<E>) => void } = {},
  ): { fetch(request: Request, env: E, ctx: ExecutionContext): Promise<Response> } {
    const apps = new WeakMap<E, Application<E>>();
    return {
      fetch(request, env, ctx) {
        let app = apps.get(env);
        if (!app) {
          app = Application.create(env, options);
          options.setup?.(app);
          apps.set(env, app);
        }
        return app.fetch(request, env, ctx);
      },
    };
  }

  /**
   * Adds a global middleware. Global middleware runs fetch-native around the
   * router rather than inside it, which keeps Hono's single-handler fast path
   * for every route (see bench `core.dispatch_ratio`).
   */
  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  #middleware: Middleware[] = [];

  /** The Workers fetch handler. `env` defaults to the one given to `create`. */
  fetch = (request: Request, env?: E, ctx?: ExecutionContext): Promise<Response> => {
    const e = env ?? this.env;
    // The router reports its own errors through onError; only middleware needs the catch.
    if (this.#middleware.length === 0) return Promise.resolve(this.hono.fetch(request, e, ctx));
    return this.#guarded(request, e, ctx);
  };

  async #guarded(request: Request, env: E, ctx: ExecutionContext | undefined): Promise<Response> {
    try {
      return await this.#dispatch(0, request, env, ctx);
    } catch (err) {
      return errorResponse(err);
    }
  }

  #dispatch(index: number, request: Request, env: E, ctx: ExecutionContext | undefined): Response | Promise<Response> {
    const middleware = this.#middleware[index];
    if (!middleware) return this.hono.fetch(request, env, ctx);
    let called = false;
    return middleware.handle(request, (next = request) => {
      if (called) throw new Error("next() called more than once by a middleware");
      called = true;
      if (next !== request) inheritRequestValues(request, next);
      return Promise.resolve(this.#dispatch(index + 1, next, env, ctx));
    });
  }
}
