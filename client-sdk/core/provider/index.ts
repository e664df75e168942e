/**
 * @module
 * Service providers: the unit of registration. `register` only puts
 * factories into the container (no I/O, no resolving of other providers'
 * entries, since they may not be registered yet); `boot` runs after every
 * provider has registered and may resolve, add routes and middleware.
 */
import type { Application } from "../application";

export abstract class ServiceProvider<E extends object = Record<string, unknown>> {
  /** Registers factories. Runs for every provider, in order, before any `boot`. */
  abstract register(app: Application<E>): void;
  /** Adds routes and middleware. Runs in provider order after all `register` calls. */
  boot(_app: Application<E>): void {}
}
