/**
 * @module
 * The organization object's `settings` table (schema.ts), one value per key: `epoch` (the kill
 * switch while thrown), `published` (the last epoch written to KV; kept after a lift, epochs only
 * grow) and `policy` (an operator's session policy, JSON). Storage only, synchronous.
 */

export type SettingKey = "epoch" | "published" | "policy";

export function readSetting(sql: SqlStorage, key: SettingKey): string | null {
  const row = sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", key).toArray()[0];
  return row ? String(row.value) : null;
}

export function writeSetting(sql: SqlStorage, key: SettingKey, value: string): void {
  sql.exec(
    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    key,
    value,
  );
}

export function deleteSetting(sql: SqlStorage, key: SettingKey): void {
  sql.exec("DELETE FROM settings WHERE key = ?", key);
}
