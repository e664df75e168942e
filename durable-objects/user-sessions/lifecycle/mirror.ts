/**
 * @module
 * The session mirror's rows (`sessions`, `tombstones`): the row a sign-in writes, how rows read as
 * `SessionInfo`, which ids a revocation takes, whether an id was revoked. Storage only, synchronous,
 * and never built from input: conditions are fixed SQL with bound values.
 */
import type { SessionLocation } from "../../../client-sdk/protocol/security-record";
import type { SessionInfo, SessionMirror } from "../schema";

type Row = Record<string, SqlStorageValue>;

/** Writes (or replaces) the row of a sign-in; `row` is what the policy decided (its expiry, the policy kept). */
export function insertSession(
  sql: SqlStorage,
  session: SessionMirror,
  deviceKey: string,
  row: { expiresAt: number; policy: string | null },
): void {
  sql.exec(
    `INSERT OR REPLACE INTO sessions (id, created_at, last_seen_at, expires_at, absolute_expires_at, organization_id, user_agent, ip, provider_session_id, device, device_key, location,
       access_token, access_expires_at, refresh_token, refresh_pending, impersonator, policy, member_of)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    session.id,
    session.createdAt,
    session.lastSeenAt,
    row.expiresAt,
    session.absoluteExpiresAt,
    session.organizationId ?? null,
    session.userAgent ?? null,
    session.ip ?? null,
    session.providerSessionId ?? null,
    session.device ?? null,
    deviceKey,
    session.location ? JSON.stringify(session.location) : null,
    session.tokens?.accessToken ?? null,
    session.tokens?.accessTokenExpiresAt ?? null,
    session.tokens?.refreshToken ?? null,
    session.impersonator ? JSON.stringify(session.impersonator) : null,
    row.policy,
    memberOf(session.memberOf),
  );
}

/**
 * The `member_of` column: the ids as a JSON array of strings, or null when the caller sent none (an
 * RPC caller is not trusted to send a well-formed list: anything but strings is dropped).
 */
export function memberOf(ids: unknown): string | null {
  if (!Array.isArray(ids)) return null;
  return JSON.stringify([...new Set(ids.filter((id): id is string => typeof id === "string" && id.length <= 128))]);
}

/** True when `id` was revoked here (a tombstone is kept until the session would have expired). */
export function isTombstoned(sql: SqlStorage, id: string): boolean {
  return sql.exec("SELECT 1 FROM tombstones WHERE id = ?", id).toArray().length > 0;
}

/** Ids of the mirrored sessions matching a fixed SQL condition (never built from input). */
export function sessionIds(sql: SqlStorage, where: string, ...bindings: SqlStorageValue[]): string[] {
  return sql
    .exec<{ id: string }>(`SELECT id FROM sessions WHERE ${where}`, ...bindings)
    .toArray()
    .map((r) => r.id);
}

/** The device and place of one mirrored session, or undefined when it has no row. */
export function whereabouts(
  sql: SqlStorage,
  id: string,
): { device: string | null; location: SessionLocation | null } | undefined {
  const row = sql
    .exec<{ device: string | null; location: string | null }>("SELECT device, location FROM sessions WHERE id = ?", id)
    .toArray()[0];
  if (!row) return undefined;
  return { device: row.device, location: row.location ? (JSON.parse(row.location) as SessionLocation) : null };
}

export function toInfo(row: Row): SessionInfo {
  return {
    id: String(row.id),
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
    absoluteExpiresAt: Number(row.absolute_expires_at),
    organizationId: row.organization_id === null ? null : String(row.organization_id),
    userAgent: row.user_agent === null ? null : String(row.user_agent),
    ip: row.ip === null ? null : String(row.ip),
    providerSessionId: row.provider_session_id === null ? null : String(row.provider_session_id),
    device: row.device === null || row.device === undefined ? null : String(row.device),
    location: row.location === null || row.location === undefined ? null : JSON.parse(String(row.location)),
    newDevice: row.new_device === 1,
    ...(row.bound === undefined ? {} : { bound: row.bound === 1 }),
  };
}
