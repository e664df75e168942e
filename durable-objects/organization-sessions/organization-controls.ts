/**
 * @module
 * An organization's kill switch (organization controls): record the epoch, publish it in KV where
 * every location's resolution sees it, then end every member's sessions in their own objects
 * (`fanout.ts`: at most `fanOutPerRun` members per invocation, the rest from the alarm), with a
 * receipt (`rcpt.o.<organizationId>.<n>`). Lifting it removes the epoch for what comes next; ended
 * sessions stay ended, and the published epoch stays in KV. Never reachable over RPC.
 */
import { orgEpochKey } from "../../client-sdk/protocol/organization-controls";
import type { RevocationActor, RevocationReceipt } from "../../client-sdk/protocol/security-record";
import { objectNow } from "../clock";
import type { UserSessions } from "../user-sessions";
import { receiptFields } from "../user-sessions/security-record";
import { drainFanOut, nextFanOut, queueMembers } from "./fanout";
import { deleteSetting, readSetting, writeSetting } from "./settings";

/** Members' objects told at once during a kill switch; the rest wait for a free slot. */
export const FAN_OUT_CONCURRENCY = 128;
const RECEIPT_PREFIX = "rcpt.o.";
/** The alarm that resumes a fan-out if the object dies mid-way (the inline run moves it on). */
const CONTINUATION_MS = 5_000;

export interface KillSwitchParts {
  /** The object's own `epoch` and `receipt`, which `end` calls as the class did (so an override applies). */
  own: { epoch(): number | null; receipt(id: string): RevocationReceipt | null };
  /** The per-user session objects; null when unbound (`end` then throws, naming `usersBinding`). */
  users: DurableObjectNamespace<UserSessions> | null;
  usersBinding(): string;
  /** The session KV namespace, where the epoch is published; null when unbound. */
  kv: KVNamespace | null;
  /** How long receipts are kept. */
  retentionMs: number;
  /** Members one invocation tells at most (read at each run). */
  fanOutPerRun(): number;
}

export class KillSwitch {
  readonly #ctx: DurableObjectState;
  readonly #parts: KillSwitchParts;
  /** The fan-out run in progress, so the call and the alarm never drain at once. */
  #draining: Promise<void> = Promise.resolve();
  /** The last KV publish of the epoch: the next waits for it. */
  #publishing: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, parts: KillSwitchParts) {
    this.#ctx = ctx;
    this.#parts = parts;
  }

  /** The epoch (ms) while the switch is thrown, or null (never thrown, or lifted). */
  epoch(): number | null {
    const value = readSetting(this.#ctx.storage.sql, "epoch");
    return value === null ? null : Number(value);
  }

  /**
   * Throws the switch: every session of every member issued before now ends. The epoch is recorded
   * here first and published in KV (eventual-mode resolution) while each member's object ends its
   * sessions. The receipt says how many, and how long until every one was refused in strict mode
   * (null while members are still queued: fetch it again by id).
   */
  async end(actor: RevocationActor): Promise<RevocationReceipt> {
    if (!this.#parts.users) {
      throw new Error(`OrganizationSessions: no session objects bound as ${this.#parts.usersBinding()}`);
    }
    const sql = this.#ctx.storage.sql;
    const organizationId = organizationIdOf(this.#ctx);
    const started = objectNow();
    // Epochs only grow: the published one (kept after a lift) must never move back.
    const previous = Math.max(this.#parts.own.epoch() ?? 0, Number(readSetting(sql, "published") ?? 0));
    const epoch = Math.max(started, previous + 1);
    writeSetting(sql, "epoch", String(epoch));
    writeSetting(sql, "published", String(epoch));
    // The receipt, the queued members and the alarm that resumes them: one synchronous block, one commit.
    const { seq } = sql
      .exec<{ seq: number }>(
        `INSERT INTO receipts (at, actor, members, revoked, sockets_closed, kv_pending, refused_after_ms, failed_members, pending_members, expires_at)
         VALUES (?, ?, 0, 0, 0, 0, NULL, 0, 0, ?) RETURNING seq`,
        started,
        JSON.stringify(actor),
        started + this.#parts.retentionMs,
      )
      .one();
    const members = queueMembers(sql, seq, epoch, actor);
    sql.exec("UPDATE receipts SET members = ?, pending_members = ? WHERE seq = ?", members, members, seq);
    void this.#ctx.storage.setAlarm(started + CONTINUATION_MS);
    // Published for eventual-mode resolution while the members' objects are told (neither waits on the other).
    const published = this.#publish(organizationId);
    await this.drain();
    // Without the published epoch, eventual mode would not refuse: the caller must hear it (and may retry).
    const unpublished = await published;
    if (unpublished) throw unpublished;
    return this.#parts.own.receipt(`${RECEIPT_PREFIX}${organizationId}.${seq}`)!;
  }

  /**
   * Lifts the switch: no longer thrown (`epoch()` is null, the next one starts from now). Sessions
   * issued before the epoch stay refused, so the published epoch stays in KV: it also covers members
   * the index missed, whose sessions no object ended.
   */
  lift(): void {
    deleteSetting(this.#ctx.storage.sql, "epoch");
  }

  /** A kill-switch receipt, by id; null when unknown or pruned. */
  receipt(id: string): RevocationReceipt | null {
    const seq = Number(id.slice(id.lastIndexOf(".") + 1));
    const row = this.#ctx.storage.sql
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

  /** One invocation's share of the queued members; then the alarm for what is left (or the next receipt expiry). */
  async drain(): Promise<void> {
    const previous = this.#draining;
    const run = (async () => {
      await previous;
      const users = this.#parts.users;
      const organizationId = organizationIdOf(this.#ctx);
      const sql = this.#ctx.storage.sql;
      if (users) {
        await drainFanOut(
          sql,
          (userId, epoch, actor) =>
            users.get(users.idFromName(userId)).endForOrganization(organizationId, epoch, actor),
          { now: objectNow(), perRun: this.#parts.fanOutPerRun(), concurrency: FAN_OUT_CONCURRENCY, clock: objectNow },
        );
      }
      sql.exec("DELETE FROM receipts WHERE expires_at <= ?", objectNow());
      const next =
        nextFanOut(sql) ?? sql.exec<{ t: number | null }>("SELECT MIN(expires_at) AS t FROM receipts").one().t ?? null;
      if (next === null) await this.#ctx.storage.deleteAlarm();
      else await this.#ctx.storage.setAlarm(Math.max(Number(next), objectNow()));
    })();
    this.#draining = run.catch(() => {});
    await run;
  }

  /**
   * Writes the latest epoch to KV. Writes run one after another and each reads the epoch when it
   * runs, so two switches thrown at once can never leave the older epoch published.
   */
  #publish(organizationId: string): Promise<unknown> {
    const kv = this.#parts.kv;
    if (!kv) return Promise.resolve(null);
    const sql = this.#ctx.storage.sql;
    const write = this.#publishing.then(() =>
      kv.put(orgEpochKey(organizationId), JSON.stringify({ epoch: Number(readSetting(sql, "published")) })),
    );
    this.#publishing = write.catch(() => {});
    return write.then(
      () => null,
      (err: unknown) => err,
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

function organizationIdOf(ctx: DurableObjectState): string {
  const name = ctx.id.name;
  if (!name) throw new Error("OrganizationSessions must be addressed by idFromName(organizationId)");
  return name;
}
