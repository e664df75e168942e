/**
 * @module
 * What the features of one `UserSessions` object share: its env, its storage, its user, the KV
 * namespace of the session records, how long the security record keeps things, the sockets of its
 * live channel and its one alarm. Built once (features.ts) and handed to each feature; it holds no
 * state of its own and is never reachable over RPC.
 */
import type { Connection } from "partyserver";
import type { RevocationActor } from "../../client-sdk/protocol/security-record";
import type { RevocationReason, RevocationResult } from "./schema";

export interface UserSessionsEnv {
  /** The session KV namespace, under the binding name in `UserSessions.sessionsBinding` (default SESSIONS). */
  SESSIONS?: KVNamespace;
  /** Where security events are also sent as signed webhooks (with `SECURITY_EVENTS_WEBHOOK_SECRET`). */
  SECURITY_EVENTS_WEBHOOK_URL?: string;
  SECURITY_EVENTS_WEBHOOK_SECRET?: string;
  /** KV deletes per invocation (production limit: 1,000 KV operations). Default 500. */
  GATEHOUSE_REVOCATION_BATCH?: string;
  /** Sessions whose memberships one invocation rewrites after a provider event. Default 400. */
  GATEHOUSE_REWRITE_BATCH?: string;
}

/** The env a `UserSessions` object is constructed with. */
export type ServerEnv = Cloudflare.Env & UserSessionsEnv & Record<string, unknown>;

/**
 * The object's own RPC methods that features call back, where the class always called them: a
 * subclass that overrides one (`isActive`, say) changes what the features do too, as before.
 */
export interface OwnMethods {
  isActive(sessionId: string, now?: number): boolean;
  revokeAll(reason?: RevocationReason, actor?: RevocationActor): Promise<RevocationResult>;
  revokeByProviderSession(providerSessionId: string): Promise<RevocationResult>;
}

export interface SessionObject {
  readonly storage: DurableObjectStorage;
  readonly sql: SqlStorage;
  /** The session KV namespace (see `sessionsNamespace`). */
  readonly kv: KVNamespace;
  /** How long timeline events, known devices and receipts are kept. */
  readonly retentionMs: number;
  /** The object's RPC methods, for the calls that go through them (see `OwnMethods`). */
  readonly own: OwnMethods;
  /** The user this object belongs to: the name it was addressed by. */
  userId(): string;
  /** The sockets joined to `sessionId`, or to any session when it is omitted (live.ts). */
  joined(sessionId?: string): Iterable<Connection>;
  /**
   * Sets the one alarm (alarms.ts). Never awaited: the alarm write joins the storage commit of the
   * caller's rows. `continuation`: before a job's inline run, so a crash mid-run resumes it.
   */
  scheduleAlarm(continuation?: boolean): void;
  /** Keeps the object alive until `work` settles (`ctx.waitUntil`): the immediate delivery to apps. */
  waitUntil(work: Promise<unknown>): void;
}

/** The user an object was addressed by (`idFromName(userId)`). */
export function userIdOf(ctx: DurableObjectState): string {
  const name = ctx.id.name;
  if (!name) throw new Error("UserSessions must be addressed by idFromName(userId)");
  return name;
}

/**
 * The KV namespace bound under `name`. A missing one is not fatal here: every KV call then fails,
 * the deletes stay queued in SQLite and are retried by alarm, and the log names the binding.
 */
export function sessionsNamespace(env: Readonly<Record<string, unknown>>, name: string): KVNamespace {
  const kv = env[name];
  if (kv && typeof (kv as KVNamespace).delete === "function") return kv as KVNamespace;
  const problem = `gatehouse: UserSessions has no KV namespace bound as ${name} (set UserSessions.sessionsBinding)`;
  console.error(problem);
  const refuse = () => Promise.reject(new Error(problem));
  return { get: refuse, put: refuse, delete: refuse, list: refuse, getWithMetadata: refuse } as unknown as KVNamespace;
}

/** A batch size from the environment: a whole number from 1 to 900 (within KV's 1,000 operations), else `fallback`. */
export function batchSetting(value: string | undefined, fallback: number): number {
  const batch = Number(value ?? fallback);
  return Number.isInteger(batch) && batch > 0 && batch <= 900 ? batch : fallback;
}
