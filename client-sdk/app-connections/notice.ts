/**
 * @module
 * `parseNotice`: the tagged-result validator of a `SessionsEndedNotice` as it arrives over RPC.
 * `kind` (which decides the close code) must be one the contract names; `reason` and `actor` must be
 * short snake_case words or null, so an auth worker newer than this SDK (a new reason) is still
 * obeyed rather than retried until dropped. Session ids are deduplicated. Never throws.
 */
import { MAX_NOTICE_SESSIONS, type SessionsEndedKind, type SessionsEndedNotice } from "../protocol/app-connections";

export type NoticeVerdict = { ok: true; value: SessionsEndedNotice } | { ok: false; reason: string };

/** Longest id (notice, user, session) a notice may carry; session ids are 64 hex characters today. */
export const MAX_ID_LENGTH = 256;

const KINDS: readonly SessionsEndedKind[] = ["revoked", "device_proof_missing"];
const WORD = /^[a-z][a-z_]{0,63}$/;

const isId = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= MAX_ID_LENGTH;

/** The notice, or why it is refused (the reason is for logs: it names a field, never a value). */
export function parseNotice(value: unknown): NoticeVerdict {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "not_object" };
  const n = value as { [K in keyof SessionsEndedNotice]?: unknown };
  if (!isId(n.id)) return { ok: false, reason: "id" };
  if (!isId(n.userId)) return { ok: false, reason: "userId" };
  if (!Array.isArray(n.sessionIds) || n.sessionIds.length === 0 || n.sessionIds.length > MAX_NOTICE_SESSIONS) {
    return { ok: false, reason: "sessionIds" };
  }
  if (!n.sessionIds.every(isId)) return { ok: false, reason: "sessionIds" };
  if (typeof n.kind !== "string" || !KINDS.includes(n.kind as SessionsEndedKind)) return { ok: false, reason: "kind" };
  if (typeof n.reason !== "string" || !WORD.test(n.reason)) return { ok: false, reason: "reason" };
  if (n.actor !== null && (typeof n.actor !== "string" || !WORD.test(n.actor))) return { ok: false, reason: "actor" };
  if (typeof n.at !== "number" || !Number.isFinite(n.at) || n.at < 0) return { ok: false, reason: "at" };
  return {
    ok: true,
    value: {
      id: n.id,
      userId: n.userId,
      sessionIds: [...new Set(n.sessionIds as string[])],
      kind: n.kind as SessionsEndedKind,
      reason: n.reason as SessionsEndedNotice["reason"],
      actor: n.actor as SessionsEndedNotice["actor"],
      at: n.at,
    },
  };
}
