/**
 * @module
 * The outbox destinations of apps: `app:<name>`, each with the receiver its binding reaches (null
 * while nothing is bound: the delivery then fails and is retried, so a missing binding is seen in
 * the log and the deliveries view, never silently skipped). Names only; no sending here.
 */
import type { RevocationReceiver } from "../../../client-sdk/protocol/app-connections";

/** One app as the outbox sees it. */
export interface AppDelivery {
  name: string;
  binding: string;
  receiver: RevocationReceiver | null;
}

/** The outbox destination of app `name`. */
export function appDestination(name: string): `app:${string}` {
  return `app:${name}`;
}
