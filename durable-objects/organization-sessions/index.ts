/**
 * @module
 * `OrganizationSessions`: one Durable Object per organization (named by organization id, SQLite).
 * A thin RPC class over its rooms: the index of the organization's members (kept by sign-ins and
 * membership webhooks, here), its session policy as an operator set it (`policy.ts`), and its kill
 * switch (`organization-controls.ts`, with the members' fan-out in `fanout.ts`): record the epoch,
 * publish it in KV, end every member's sessions in their own objects. RPC methods only.
 */
import { DurableObject } from "cloudflare:workers";
import type { SessionPolicy } from "../../client-sdk/protocol/policy";
import type { RevocationActor, RevocationReceipt } from "../../client-sdk/protocol/security-record";
import { objectNow } from "../clock";
import type { UserSessions } from "../user-sessions";
import { DEFAULT_RETENTION_MS } from "../user-sessions/security-record";
import { KillSwitch } from "./organization-controls";
import { readPolicy, writePolicy } from "./policy";
import { ORGANIZATION_SCHEMA } from "./schema";

export { FAN_OUT_CONCURRENCY, organizationReceiptOwner } from "./organization-controls";

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

  /** The kill switch (organization-controls.ts): never reachable over RPC. */
  readonly #killSwitch: KillSwitch;

  constructor(ctx: DurableObjectState, env: OrganizationEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(ORGANIZATION_SCHEMA);
    const settings = new.target as typeof OrganizationSessions;
    const users = env[settings.userSessionsBinding];
    const kv = env[settings.sessionsBinding];
    this.#killSwitch = new KillSwitch(ctx, {
      own: this,
      users: isNamespace(users) ? (users as DurableObjectNamespace<UserSessions>) : null,
      usersBinding: () => OrganizationSessions.userSessionsBinding,
      kv: kv && typeof (kv as KVNamespace).put === "function" ? (kv as KVNamespace) : null,
      retentionMs: settings.retentionMs,
      fanOutPerRun: () => (this.constructor as typeof OrganizationSessions).fanOutPerRun,
    });
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
    return readPolicy(this.ctx.storage.sql);
  }

  setPolicy(policy: SessionPolicy | null): void {
    writePolicy(this.ctx.storage.sql, policy);
  }

  /** The kill switch's epoch (ms) while it is thrown, or null (never thrown, or lifted). */
  epoch(): number | null {
    return this.#killSwitch.epoch();
  }

  /**
   * The kill switch: every session of every member issued before now ends (its epoch published in
   * KV, each member's object told). The receipt's `refusedAfterMs` is null while members are still
   * queued: fetch it again by id.
   */
  endSessions(actor: RevocationActor): Promise<RevocationReceipt> {
    return this.#killSwitch.end(actor);
  }

  /** Continues a fan-out past one invocation's share (or after a crash), retries failed members, prunes receipts. */
  override async alarm(): Promise<void> {
    await this.#killSwitch.drain();
  }

  /** Lifts the kill switch for what comes next; ended sessions stay ended. */
  lift(): void {
    this.#killSwitch.lift();
  }

  /** A kill-switch receipt of this organization, by id; null when unknown or pruned. */
  receipt(id: string): RevocationReceipt | null {
    return this.#killSwitch.receipt(id);
  }
}

function isNamespace(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && typeof (value as DurableObjectNamespace).idFromName === "function"
  );
}
