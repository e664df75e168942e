/**
 * @module
 * Subjects of a stream (SSF 1.0 §8.1.3). Our streams start with every subject in them
 * (`default_subjects: "ALL"`, §7.1): a receiver removes the subjects it does not want and may add
 * them back. A removed subject is kept as canonical JSON (keys sorted), and an event's `sub_id` is
 * held back when it matches one per §8.1.3.1: simple subjects match when identical; complex ones
 * when every member both define is identical and they share at least one (a removed complex
 * subject with no member in common with the event is no statement about it: §9.3, we keep sending).
 * A complex subject needs one or more simple members (§3.2), so `{ "format": "complex" }` alone,
 * which would match every complex event, is no subject. A removed simple subject also matches a
 * complex `sub_id` that has it as a member (removing a user's `iss_sub` holds back that user's
 * session events). Pure functions and the rows of `stream_subjects`.
 */
import type { SubjectIdentifier } from "../../client-sdk/protocol/shared-signals";

/** A subject body larger than this is refused (a real RFC 9493 identifier is a few hundred bytes). */
export const MAX_SUBJECT_BYTES = 2_048;
/** Removed subjects one stream keeps at most. */
export const MAX_REMOVED_SUBJECTS = 1_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Subject = Record<string, unknown> & { format: string };

function isSubject(value: unknown): value is Subject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const format = (value as { format?: unknown }).format;
  return typeof format === "string" && format !== "" && format.length <= 64;
}

/** The subject as canonical JSON (object keys sorted at every level), or null when it is no subject. */
export function canonicalSubject(value: unknown): string | null {
  if (!isSubject(value)) return null;
  if (value.format === "complex") {
    const members = Object.entries(value).filter(([key]) => key !== "format");
    if (members.length === 0 || members.some(([, m]) => !isSubject(m) || m.format === "complex")) return null;
  }
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
  // fromEntries defines each key, `__proto__` included (an assignment would set the prototype and lose it).
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted(value[key]!)]),
  );
}

/** A removed subject as matching needs it, parsed once: a simple one's canonical JSON, or a complex one's members'. */
export type RemovedSubject = { simple: string } | { members: ReadonlyMap<string, string> };

/** A complex subject's members as canonical JSON by name (one that is no subject: `invalid`, which matches nothing). */
function membersOf(value: Record<string, unknown>, invalid: string | null): Map<string, string> {
  const members = new Map<string, string>();
  for (const [key, member] of Object.entries(value)) {
    if (key === "format") continue;
    const canonical = canonicalSubject(member) ?? invalid;
    if (canonical !== null) members.set(key, canonical);
  }
  return members;
}

/** The subjects the stream's receiver removed, read once for a batch of events. */
export function removedSubjects(sql: SqlStorage, streamId: string): RemovedSubject[] {
  return sql
    .exec<{ subject: string }>("SELECT subject FROM stream_subjects WHERE stream_id = ?", streamId)
    .toArray()
    .map(({ subject }) => {
      const value = JSON.parse(subject) as Record<string, unknown>;
      return value.format === "complex" ? { members: membersOf(value, "") } : { simple: subject };
    });
}

/** True when one of `removed` (a stream's removed subjects) matches the event subject `subject` (module doc). */
export function isRemoved(removed: readonly RemovedSubject[], subject: SubjectIdentifier): boolean {
  if (removed.length === 0) return false;
  const event = subject as unknown as Record<string, unknown>;
  const whole = canonicalSubject(event);
  const members = event.format === "complex" ? membersOf(event, null) : null;
  return removed.some((r) => {
    if ("simple" in r) return r.simple === whole || (members !== null && [...members.values()].includes(r.simple));
    if (members === null) return false;
    let shared = 0;
    for (const [key, canonical] of r.members) {
      const theirs = members.get(key);
      if (theirs === undefined) continue;
      if (theirs !== canonical) return false;
      shared++;
    }
    return shared > 0;
  });
}

/** How many subjects the stream's receiver removed. */
export function removedCount(sql: SqlStorage, streamId: string): number {
  return Number(
    sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM stream_subjects WHERE stream_id = ?", streamId).one().n,
  );
}

/** Removes (holds back) a subject; false when the stream keeps too many already. */
export function removeSubject(sql: SqlStorage, streamId: string, canonical: string): boolean {
  if (removedCount(sql, streamId) >= MAX_REMOVED_SUBJECTS) return false;
  sql.exec("INSERT OR IGNORE INTO stream_subjects (stream_id, subject) VALUES (?, ?)", streamId, canonical);
  return true;
}

/** Adds a subject back (with ALL as the default, adding a subject never removed changes nothing). */
export function addSubject(sql: SqlStorage, streamId: string, canonical: string): void {
  sql.exec("DELETE FROM stream_subjects WHERE stream_id = ? AND subject = ?", streamId, canonical);
}
