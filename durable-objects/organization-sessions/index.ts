/**
 * @module
 * `OrganizationSessions`: one Durable Object per organization (named by organization id, SQLite).
 * It indexes the organization's members (kept by sign-ins and membership webhooks), holds its
 * session policy as an operator set it, and runs its kill switch: record the epoch, publish it in
 * KV where every location's resolution sees it, then end every member's sessions in their own
 * objects (strict mode refuses them from each commit, open tabs are told). Lifting the switch
 * removes the epoch for what comes next; ended sessions stay ended. RPC methods only.
 */
import { DurableObject } from "cloudflare:workers";
import type { RevocationActor, RevocationReceipt, SessionPolicy } from "../../client-sdk/protocol/security";
import type { RevocationResult } from "../../client-sdk/protocol/session-object";
import { orgEpochKey } from "../../client-sdk/protocol/session-record";
import { objectNow } from "../clock";
import type { UserSessions } from "../user-sessions";
import { DEFAULT_RETENTION_MS } from "../user-sessions/timeline";
import { ORGANIZATION_SCHEMA } from "./schema";

/** Members' objects told at once during a kill switch; the rest wait for a free slot. */
export const FAN_OUT_CONCURRENCY = 64;
const RECEIPT_PREFIX = "rcpt.o.";

type OrganizationEnv = Record<string, unknown>;

export class OrganizationSessions extends DurableObject<OrganizationEnv> {
  /** The binding of the per-user session objects (`createAuthWorker` sets it from `bindings.userSessions`). */
  static userSessionsBinding = "USER_SESSIONS";
  /** The session KV namespace, where the kill switch's epoch is published. */
  static sessionsBinding = "SESSIONS";
  /** How long receipts are kept (default 90 days). */
  static retentionMs = DEFAULT_RETENTION_MS;

  readonly #users: DurableObjectNamespace<UserSessions> | null;
  readonly #kv: KVNamespace | null;
  readonly #retentionMs: number;

  constructor(ctx: DurableObjectState, env: OrganizationEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(ORGANIZATION_SCHEMA);
    const settings = new.target as typeof OrganizationSessions;
    const users = env[settings.userSessionsBinding];
    const kv = env[settings.sessionsBinding];
    this.#users = isNamespace(users) ? (users as DurableObjectNamespace<UserSessions>) : null;
    this.#kv = kv && typeof (kv as KVNamespace).put === "function" ? (kv as KVNamespace) : null;
    this.#retentionMs = settings.retentionMs;
  }

  /** Indexes a member (a sign-in into, or a membership of, this organization). Idempotent. */
  addMember(userId: string): void {
    this.ctx.storage.sql.exec("INSERT OR IGNORE INTO members (user_id, added_at) VALUES (?, ?)", userId, objectNow());
  }

  removeMember(userId: string): void {
    this.ctx.storage.sql.exec("DELETE FROM members WHERE user_id = ?", userId);
  }

  memberCount(): number {
    return Number(this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM members").one().n);
  }

  /** The session policy an operator set for this organization, or null (the worker's default applies). */
  policy(): SessionPolicy | null {
    const value = this.#setting("policy");
    return value === null ? null : (JSON.parse(value) as SessionPolicy);
  }

  setPolicy(policy: SessionPolicy | null): void {
    if (policy === null) this.ctx.storage.sql.exec("DELETE FROM settings WHERE key = 'policy'");
    else this.#setSetting("policy", JSON.stringify(policy));
  }

  /** The kill switch's epoch (ms), or null when none is set. */
  epoch(): number | null {
    const value = this.#setting("epoch");
    return value === null ? null : Number(value);
  }

  /**
   * The kill switch: every session of every member issued before now ends. The epoch is recorded
   * here first, then published in KV (eventual-mode resolution), then each member's object ends
   * its sessions; the receipt says how many, and how long until every one was refused in strict mode.
   */
  async endSessions(actor: RevocationActor): Promise<RevocationReceipt> {
    const users = this.#users;
    if (!users)
      throw new Error(`OrganizationSessions: no session objects bound as ${OrganizationSessions.userSessionsBinding}`);
    const organizationId = this.#organizationId();
    const started = objectNow();
    const epoch = Math.max(started, (this.epoch() ?? 0) + 1);
    this.#setSetting("epoch", String(epoch));
    await this.#kv?.put(orgEpochKey(organizationId), JSON.stringify({ epoch }));
    const members = this.ctx.storage.sql
      .exec<{ user_id: string }>("SELECT user_id FROM members ORDER BY user_id")
      .toArray()
      .map((r) => r.user_id);
    const totals = { revoked: 0, socketsClosed: 0, pendingKvDeletes: 0, failed: 0 };
    let next = 0;
    const worker = async () => {
      while (next < members.length) {
        const userId = members[next++]!;
        try {
          const stub = users.get(users.idFromName(userId));
          const result: RevocationResult = await stub.endForOrganization(organizationId, epoch, actor);
          totals.revoked += result.revoked;
          totals.socketsClosed += result.socketsClosed;
          totals.pendingKvDeletes += result.pendingKvDeletes;
        } catch (err) {
          // The epoch still refuses this member's sessions (KV, and the next sign-in's object); count it.
          totals.failed++;
          console.error(
            "gatehouse: kill switch could not reach a member's session object",
            err instanceof Error ? err.message : err,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(FAN_OUT_CONCURRENCY, members.length) }, worker));
    const refusedAfterMs = Math.max(0, objectNow() - started);
    const { seq } = this.ctx.storage.sql
      .exec<{ seq: number }>(
        `INSERT INTO receipts (at, actor, members, revoked, sockets_closed, kv_pending, refused_after_ms, failed_members, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
        started,
        JSON.stringify(actor),
        members.length,
        totals.revoked,
        totals.socketsClosed,
        totals.pendingKvDeletes,
        refusedAfterMs,
        totals.failed,
        started + this.#retentionMs,
      )
      .one();
    return this.receipt(`${RECEIPT_PREFIX}${organizationId}.${seq}`)!;
  }

  /** Lifts the kill switch for what comes next: the epoch is removed here and in KV; ended sessions stay ended. */
  async lift(): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM settings WHERE key = 'epoch'");
    await this.#kv?.delete(orgEpochKey(this.#organizationId()));
  }

  /** A kill-switch receipt of this organization, by id; null when unknown or pruned. */
  receipt(id: string): RevocationReceipt | null {
    const seq = Number(id.slice(id.lastIndexOf(".") + 1));
    const row = this.ctx.storage.sql
      .exec("SELECT * FROM receipts WHERE seq = ? AND expires_at > ?", seq, objectNow())
      .toArray()[0];
    if (!row) return null;
    return {
      id,
      at: Number(row.at),
      actor: JSON.parse(String(row.actor)) as RevocationActor,
      revoked: Number(row.revoked),
      socketsClosed: Number(row.sockets_closed),
      // The members' alarms write the KV marks; this is what they had left when the switch returned.
      kvDeleted: Number(row.revoked) - Number(row.kv_pending),
      kvPending: Number(row.kv_pending),
      refusedAfterMs: Number(row.refused_after_ms),
      members: Number(row.members),
    };
  }

  #organizationId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("OrganizationSessions must be addressed by idFromName(organizationId)");
    return name;
  }

  #setting(key: string): string | null {
    const row = this.ctx.storage.sql
      .exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", key)
      .toArray()[0];
    return row ? String(row.value) : null;
  }

  #setSetting(key: string, value: string): void {
    this.ctx.storage.sql.exec(
      "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }
}

/** The organization id an organization receipt id names (`rcpt.o.<orgId>.<n>`), or null. */
export function organizationReceiptOwner(id: string): string | null {
  if (!id.startsWith(RECEIPT_PREFIX)) return null;
  const rest = id.slice(RECEIPT_PREFIX.length);
  const dot = rest.lastIndexOf(".");
  return dot > 0 && /^\d+$/.test(rest.slice(dot + 1)) ? rest.slice(0, dot) : null;
}

function isNamespace(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && typeof (value as DurableObjectNamespace).idFromName === "function"
  );
}
