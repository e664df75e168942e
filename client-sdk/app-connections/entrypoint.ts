/**
 * @module
 * `GatehouseRevocations`: the app's entrypoint the auth worker's service binding points at
 * (`RevocationReceiver`). It validates a notice and hands it to the user's registry, which closes
 * the connections; it never answers before they are closed, and any failure throws (the auth
 * worker's outbox retries). Its `fetch` answers 404: it is reached over RPC only.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { releaseRpcResult } from "../core/rpc";
import type { RevocationReceiver, SessionsEndedNotice } from "../protocol/app-connections";
import { DEFAULT_REGISTRY_BINDING, namespaceOf, type SessionRegistry } from "./bindings";
import { AppConnectionsError } from "./errors";
import { parseNotice } from "./notice";

/**
 * @example
 * ```ts
 * // The app's worker.ts; the auth worker's wrangler config:
 * // [[services]] binding = "APP_CHAT", service = "chat-app", entrypoint = "GatehouseRevocations"
 * export { GatehouseRevocations, SessionConnections } from "gatehouse-workers/connections";
 * // Another registry binding: a subclass.
 * export class Revocations extends GatehouseRevocations { static override registryBinding = "CONNECTIONS"; }
 * ```
 */
export class GatehouseRevocations extends WorkerEntrypoint<object> implements RevocationReceiver {
  /** The env binding of the registry (`SessionConnections`). */
  static registryBinding: string = DEFAULT_REGISTRY_BINDING;

  /** Closes every connection of the notice's sessions (through the user's registry), or throws. */
  async sessionsEnded(notice: SessionsEndedNotice): Promise<{ closed: number }> {
    const parsed = parseNotice(notice);
    if (!parsed.ok) {
      throw new AppConnectionsError("invalid_notice", { message: `invalid sessions-ended notice (${parsed.reason})` });
    }
    const binding = (this.constructor as typeof GatehouseRevocations).registryBinding;
    const registry = namespaceOf<SessionRegistry>(this.env, binding, "GatehouseRevocations");
    const answer = releaseRpcResult(await registry.getByName(parsed.value.userId).sessionsEnded(parsed.value));
    return { closed: answer.closed };
  }

  /** Not an HTTP endpoint. */
  override fetch(): Response {
    return new Response("Not found", { status: 404 });
  }
}
