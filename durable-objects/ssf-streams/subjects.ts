/**
 * @module
 * Subjects of a stream (SSF 1.0 §8.1.3). Our streams start with every subject in them
 * (`default_subjects: "ALL"`, §7.1): a receiver removes the subjects it does not want and may add
 * them back. A removed subject is kept as canonical JSON (keys sorted), and an event's `sub_id` is
 * held back when it matches one per §8.1.3.1: simple subjects match when identical; complex ones
 * when every member both define is identical. A removed simple subject also matches a complex
 * `sub_id` that has it as a member (removing a user's `iss_sub` holds back that user's session
 * events). Pure functions and the rows of `stream_subjects`.
 */
import type { SubjectIdentifier } from "../../client-sdk/protocol/shared-signals";

/** A subject body larger than this is refused (a real RFC 9493 identifier is a few hundred bytes). */
export const MAX_SUBJECT_BYTES = 2_048;
/** Removed subjects one stream keeps at most. */
export const MAX_REMOVED_SUBJECTS = 1_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The subject as canonical JSON (object keys sorted at every level), or null when it is no subject. */
export function canonicalSubject(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const format = (value as { format?: unknown }).format;
  if (typeof format !== "string" || format === "" || format.length > 64) return null;
  let text: string;
  try {
    text = JSON.stringify(sorted(value as Json));
  } catch {
    return null;
  }
  return new TextEncoder().encode(text).length <= MAX_SUBJECT_BYTES ? text : null;
}

function sorted(value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) out[key] = sorted(value[key]!);
  return out;
}

/** True when `removed` (a receiver's removed subject) matches the event subject `subject` (module doc). */
export function subjectMatches(removed: Record<string, unknown>, subject: SubjectIdentifier): boolean {
  const canonical = (v: unknown) => canonicalSubject(v);
  const event = subject as unknown as Record<string, unknown>;
  if (removed.format !== "complex") {
    if (canonical(removed) === canonical(event)) return true;
    if (event.format !== "complex") return false;
    return Object.entries(event).some(([key, member]) => key !== "format" && canonical(member) === canonical(removed));
  }
  if (event.format !== "complex") return false;
  const members = new Set([...Object.keys(removed), ...Object.keys(event)]);
  members.delete("format");
  for (const key of members) {
    if (removed[key] === undefined || event[key] === undefined) continue;
    if (canonical(removed[key]) !== canonical(event[key])) return false;
  }
  return true;
}

/** True when the stream's receiver removed a subject that matches `subject`. */
export function isRemoved(sql: SqlStorage, streamId: string, subject: SubjectIdentifier): boolean {
  for (const row of sql.exec<{ subject: string }>(
    "SELECT subject FROM stream_subjects WHERE stream_id = ?",
    streamId,
  )) {
    if (subjectMatches(JSON.parse(row.subject) as Record<string, unknown>, subject)) return true;
  }
  return false;
}

/** Removes (holds back) a subject; false when the stream keeps too many already. */
export function removeSubject(sql: SqlStorage, streamId: string, canonical: string): boolean {
  const count = Number(
    sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM stream_subjects WHERE stream_id = ?", streamId).one().n,
  );
  if (count >= MAX_REMOVED_SUBJECTS) return false;
  sql.exec("INSERT OR IGNORE INTO stream_subjects (stream_id, subject) VALUES (?, ?)", streamId, canonical);
  return true;
}

/** Adds a subject back (with ALL as the default, adding a subject never removed changes nothing). */
export function addSubject(sql: SqlStorage, streamId: string, canonical: string): void {
  sql.exec("DELETE FROM stream_subjects WHERE stream_id = ? AND subject = ?", streamId, canonical);
}
