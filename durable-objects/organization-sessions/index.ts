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
import { orgEpochKey } from "../../client-sdk/protocol/organization-controls";
import type { SessionPolicy } from "../../client-sdk/protocol/policy";
import type { RevocationActor, RevocationReceipt } from "../../client-sdk/protocol/security-record";
import { objectNow } from "../clock";
import type { UserSessions } from "../user-sessions";
import { receiptFields } from "../user-sessions/security-record/receipts";
import { DEFAULT_RETENTION_MS } from "../user-sessions/security-record/timeline";
import { drainFanOut, nextFanOut, queueMembers } from "./fanout";
import { ORGANIZATION_SCHEMA } from "./schema";

/** Members' objects told at once during a kill switch; the rest wait for a free slot. */
export const FAN_OUT_CONCURRENCY = 128;
const RECEIPT_PREFIX = "rcpt.o.";
/** The alarm that resumes a fan-out if the object dies mid-way (the inline run moves it on). */
const CONTINUATION_MS = 5_000;

type OrganizationEnv = Record<string, unknown>;

export class OrganizationSessions extends DurableObject<OrganizationEnv> {
  /** The binding of the per-user session objects (`createAuthWorker` sets it from `bindings.userSessions`). */
  static userSessionsBinding = "USER_SESSIONS";
  /** The session KV namespace, where the kill switch's epoch is published. */
  static sessionsBinding = "SESSIONS";
  /** How long receipts are kept (default 90 days). */
  static retentionMs = DEFAULT_RETENTION_MS;
  /**
   * Members' objects one invocation tells at most; the alarm continues with the rest. Each is a
   * subrequest: keep it under your plan's limit per invocation (10,000 on Workers Paid, 50 on Free).
   */
  static fanOutPerRun = 1_000;

  readonly #users: DurableObjectNamespace<UserSessions> | null;
  readonly #kv: KVNamespace | null;
  readonly #retentionMs: number;
  /** The fan-out run in progress, so the call and the alarm never drain at once. */
  #draining: Promise<void> = Promise.resolve();
  /** The last KV publish of the epoch: the next waits for it. */
  #publishing: Promise<unknown> = Promise.resolve();

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

  /** The kill switch's epoch (ms) while it is thrown, or null (never thrown, or lifted). */
  epoch(): number | null {
    const value = this.#setting("epoch");
    return value === null ? null : Number(value);
  }

  /**
   * The kill switch: every session of every member issued before now ends. The epoch is recorded
   * here first and published in KV (eventual-mode resolution) while each member's object ends its
   * sessions (`fanout.ts`: at most `fanOutPerRun` members per invocation, the rest from the alarm).
   * The receipt says how many, and how long until every one was refused in strict mode (null while
   * members are still queued: fetch it again by id).
   */
  async endSessions(actor: RevocationActor): Promise<RevocationReceipt> {
    if (!this.#users)
      throw new Error(`OrganizationSessions: no session objects bound as ${OrganizationSessions.userSessionsBinding}`);
    const sql = this.ctx.storage.sql;
    const organizationId = this.#organizationId();
    const started = objectNow();
    // Epochs only grow: the published one (kept after a lift) must never move back.
    const previous = Math.max(this.epoch() ?? 0, Number(this.#setting("published") ?? 0));
    const epoch = Math.max(started, previous + 1);
    this.#setSetting("epoch", String(epoch));
    this.#setSetting("published", String(epoch));
    // The receipt, the queued members and the alarm that resumes them: one synchronous block, one commit.
    const { seq } = sql
      .exec<{ seq: number }>(
        `INSERT INTO receipts (at, actor, members, revoked, sockets_closed, kv_pending, refused_after_ms, failed_members, pending_members, expires_at)
         VALUES (?, ?, 0, 0, 0, 0, NULL, 0, 0, ?) RETURNING seq`,
        started,
        JSON.stringify(actor),
        started + this.#retentionMs,
      )
      .one();
    const members = queueMembers(sql, seq, epoch, actor);
    sql.exec("UPDATE receipts SET members = ?, pending_members = ? WHERE seq = ?", members, members, seq);
    void this.ctx.storage.setAlarm(started + CONTINUATION_MS);
    // Published for eventual-mode resolution while the members' objects are told (neither waits on the other).
    const published = this.#publish(organizationId);
    await this.#drain();
    // Without the published epoch, eventual mode would not refuse: the caller must hear it (and may retry).
    const unpublished = await published;
    if (unpublished) throw unpublished;
    return this.receipt(`${RECEIPT_PREFIX}${organizationId}.${seq}`)!;
  }

  /**
   * Writes the latest epoch to KV. Writes run one after another and each reads the epoch when it
   * runs, so two switches thrown at once can never leave the older epoch published.
   */
  #publish(organizationId: string): Promise<unknown> {
    const kv = this.#kv;
    if (!kv) return Promise.resolve(null);
    const write = this.#publishing.then(() =>
      kv.put(orgEpochKey(organizationId), JSON.stringify({ epoch: Number(this.#setting("published")) })),
    );
    this.#publishing = write.catch(() => {});
    return write.then(
      () => null,
      (err: unknown) => err,
    );
  }

  /** Continues a fan-out past one invocation's share (or after a crash), retries failed members, prunes receipts. */
  override async alarm(): Promise<void> {
    await this.#drain();
  }

  /** One invocation's share of the queued members; then the alarm for what is left (or the next receipt expiry). */
  async #drain(): Promise<void> {
    const previous = this.#draining;
    const run = (async () => {
      await previous;
      const users = this.#users;
      const organizationId = this.#organizationId();
      if (users) {
        const settings = this.constructor as typeof OrganizationSessions;
        await drainFanOut(
          this.ctx.storage.sql,
          (userId, epoch, actor) =>
            users.get(users.idFromName(userId)).endForOrganization(organizationId, epoch, actor),
          { now: objectNow(), perRun: settings.fanOutPerRun, concurrency: FAN_OUT_CONCURRENCY, clock: objectNow },
        );
      }
      const sql = this.ctx.storage.sql;
      sql.exec("DELETE FROM receipts WHERE expires_at <= ?", objectNow());
      const next =
        nextFanOut(sql) ?? sql.exec<{ t: number | null }>("SELECT MIN(expires_at) AS t FROM receipts").one().t ?? null;
      if (next === null) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(Math.max(Number(next), objectNow()));
    })();
    this.#draining = run.catch(() => {});
    await run;
  }

  /**
   * Lifts the kill switch: it is no longer thrown (`epoch()` is null, the next one starts from now).
   * Sessions issued after the epoch were never refused by it; those issued before it stay refused,
   * so the published epoch stays in KV: it also covers members the index missed, whose sessions no
   * object ended (ended sessions stay ended, whoever ended them).
   */
  lift(): void {
    this.ctx.storage.sql.exec("DELETE FROM settings WHERE key = 'epoch'");
  }

  /** A kill-switch receipt of this organization, by id; null when unknown or pruned. */
  receipt(id: string): RevocationReceipt | null {
    const seq = Number(id.slice(id.lastIndexOf(".") + 1));
    const row = this.ctx.storage.sql
      .exec("SELECT * FROM receipts WHERE seq = ? AND expires_at > ?", seq, objectNow())
      .toArray()[0];
    if (!row) return null;
    return {
      ...receiptFields(id, row),
      // The members' alarms write the KV marks; this is what they had left when the switch returned.
      kvDeleted: Number(row.revoked) - Number(row.kv_pending),
      kvPending: Number(row.kv_pending),
      refusedAfterMs: row.refused_after_ms === null ? null : Number(row.refused_after_ms),
      members: Number(row.members),
      membersPending: Number(row.pending_members),
      membersFailed: Number(row.failed_members),
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
