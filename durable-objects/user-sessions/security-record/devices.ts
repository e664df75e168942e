/**
 * @module
 * The devices a user signs in from: a device (its browser and system without versions, so an
 * update is not a new device) in a place (country, region, city). The first sign-in from a pair
 * not seen within the retention window is a new device. Storage only; what it reads from a
 * request was decided by the auth worker (any client can send any User-Agent: this describes).
 */
import type { KnownDevice, SessionLocation } from "../../../client-sdk/protocol/security-record";

/** Devices a user's object keeps at most; past it, the least recently seen goes. */
export const MAX_KNOWN_DEVICES = 200;

/** The key of a device in a place. */
export function deviceKey(
  deviceClass: string | null | undefined,
  location: SessionLocation | null | undefined,
): string {
  const place = location ? [location.country, location.region, location.city].map((p) => p ?? "").join("|") : "||";
  return `${(deviceClass ?? "unknown").toLowerCase()}|${place.toLowerCase()}`;
}

/**
 * Records a sign-in from `key`; true when the pair is new (never seen, or last seen longer ago
 * than `retentionMs`). Its first-seen time restarts when it had fallen out of the window.
 */
export function noteDevice(
  sql: SqlStorage,
  key: string,
  device: string,
  location: SessionLocation | null,
  now: number,
  retentionMs: number,
): boolean {
  const known = sql
    .exec<{ last_seen_at: number }>("SELECT last_seen_at FROM known_devices WHERE key = ?", key)
    .toArray()[0];
  const isNew = !known || now - Number(known.last_seen_at) > retentionMs;
  sql.exec(
    `INSERT INTO known_devices (key, device, location, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET device = excluded.device, last_seen_at = excluded.last_seen_at,
       first_seen_at = CASE WHEN ? THEN excluded.first_seen_at ELSE first_seen_at END`,
    key,
    device,
    location ? JSON.stringify(location) : null,
    now,
    now,
    isNew ? 1 : 0,
  );
  // Bounded whatever User-Agents a sign-in sends (an unrecognised one is its own device).
  sql.exec(
    `DELETE FROM known_devices WHERE key IN
       (SELECT key FROM known_devices ORDER BY last_seen_at DESC, key LIMIT -1 OFFSET ?)`,
    MAX_KNOWN_DEVICES,
  );
  return isNew;
}

/** Every device seen within the retention window, most recent first, with its live sessions now. */
export function listDevices(sql: SqlStorage, now: number, retentionMs: number): KnownDevice[] {
  return sql
    .exec(
      `SELECT d.device, d.location, d.first_seen_at, d.last_seen_at,
         (SELECT COUNT(*) FROM sessions s WHERE s.device_key = d.key AND s.expires_at > ?) AS live
       FROM known_devices d WHERE d.last_seen_at > ? ORDER BY d.last_seen_at DESC LIMIT ?`,
      now,
      now - retentionMs,
      MAX_KNOWN_DEVICES,
    )
    .toArray()
    .map((row) => ({
      device: String(row.device),
      location: row.location === null ? null : (JSON.parse(String(row.location)) as SessionLocation),
      firstSeenAt: Number(row.first_seen_at),
      lastSeenAt: Number(row.last_seen_at),
      sessions: Number(row.live),
    }));
}

export function pruneDevices(sql: SqlStorage, now: number, retentionMs: number): void {
  sql.exec("DELETE FROM known_devices WHERE last_seen_at <= ?", now - retentionMs);
}
