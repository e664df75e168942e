/**
 * @module
 * The console's own timeline: who opened or closed a break-glass session and which revocations
 * operators made from the console or the admin API, each with its receipt id. KV
 * `console:log:<16-digit inverted time>:<random>` with the entry in the key's metadata, so one
 * `list` reads the newest entries first; kept `LOG_TTL_SECONDS`. Every revocation is also on the
 * affected user's own timeline, with the operator as its actor.
 */
import { randomToken } from "../crypto";

const PREFIX = "console:log:";
/** Entries are kept 30 days. */
export const LOG_TTL_SECONDS = 30 * 86_400;
const INVERT = 10 ** 16;

export type OperatorAction =
  | "break_glass.opened"
  | "break_glass.closed"
  | "session.revoked"
  | "user.revoked"
  | "organization.ended";

export interface OperatorLogEntry {
  at: number;
  action: OperatorAction;
  /** Who: `break-glass:<token label>`, an admin's email, or `api:<token label>`. */
  operator: string;
  /** What it was done to: a user id, an organization id, or null. */
  target: string | null;
  receiptId: string | null;
}

export class OperatorLog {
  readonly #kv: KVNamespace;
  readonly #clock: () => number;

  constructor(kv: KVNamespace, clock: () => number) {
    this.#kv = kv;
    this.#clock = clock;
  }

  /** Adds an entry; a failure is logged and never undoes what the operator did. */
  async record(entry: Omit<OperatorLogEntry, "at">): Promise<void> {
    const at = this.#clock();
    const full: OperatorLogEntry = { at, ...entry, operator: entry.operator.slice(0, 128) };
    const key = `${PREFIX}${String(INVERT - at).padStart(16, "0")}:${randomToken(6)}`;
    try {
      await this.#kv.put(key, "", { expirationTtl: LOG_TTL_SECONDS, metadata: full });
    } catch (cause) {
      console.error("gatehouse: could not write the operator log", cause instanceof Error ? cause.name : "");
    }
  }

  /** The newest entries, at most `limit`. */
  async recent(limit = 20): Promise<OperatorLogEntry[]> {
    const listed = await this.#kv.list<OperatorLogEntry>({ prefix: PREFIX, limit });
    return listed.keys.flatMap((k) => (k.metadata ? [k.metadata] : []));
  }
}
