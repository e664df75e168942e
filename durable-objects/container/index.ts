/**
 * @module gatehouse-workers/containers
 * `GatehouseContainer`: the container class behind `ContainerClient`, built on
 * `@cloudflare/containers` (a Durable Object that starts one container per
 * instance and proxies HTTP to it). The image must answer `GET /health` with
 * 2xx once ready (`ContainerClient.warmup`). It never logs request contents.
 *
 * Deployment (wrangler.toml of the host worker; needs Docker to build the image):
 * ```toml
 * [[containers]]
 * class_name = "GatehouseContainer"
 * image = "./container/Dockerfile"
 * max_instances = 10
 *
 * [[durable_objects.bindings]]
 * name = "CONTAINERS"
 * class_name = "GatehouseContainer"
 *
 * [[migrations]]
 * tag = "v1"
 * new_sqlite_classes = ["GatehouseContainer"]
 * ```
 */
import { Container } from "@cloudflare/containers";

/** Port the image listens on. */
export const CONTAINER_PORT = 8080;
/** Idle time after which an instance's container is stopped. */
export const CONTAINER_SLEEP_AFTER = "10m";

/**
 * Subclass it to change the port, idle time, environment or lifecycle hooks;
 * export the subclass from the host worker under the configured `class_name`.
 *
 * @example
 * ```ts
 * export { GatehouseContainer } from "gatehouse-workers/containers";
 * // in a handler:
 * const containers = new ContainerClient(env.CONTAINERS);
 * const res = await containers.send("tenant-42", "/render", { method: "POST", body });
 * ```
 */
export class GatehouseContainer<Env = Cloudflare.Env> extends Container<Env> {
  override defaultPort = CONTAINER_PORT;
  override sleepAfter: string | number = CONTAINER_SLEEP_AFTER;

  override onStart(): void {
    console.log(`GatehouseContainer ${this.ctx.id.toString()}: started`);
  }

  override onStop({ exitCode, reason }: { exitCode: number; reason: string }): void {
    console.log(`GatehouseContainer ${this.ctx.id.toString()}: stopped (${reason}, exit code ${exitCode})`);
  }

  override onError(error: unknown): unknown {
    console.error(
      `GatehouseContainer ${this.ctx.id.toString()}: error`,
      error instanceof Error ? error.message : error,
    );
    throw error;
  }
}
