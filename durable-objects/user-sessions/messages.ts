/**
 * @module
 * Messages the session object sends to connected tabs, superjson-encoded so
 * dates survive the wire. Close codes are in the application range 4000-4999.
 * A tab must treat `session.revoked` as final: the server closes it right after.
 */
import superjson from "superjson";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import type { RevocationReason } from "./schema";

/** Close code sent with `session.revoked`. */
export const CLOSE_SESSION_REVOKED = 4001;
/** Close code when a connection's session is not (or no longer) active. */
export const CLOSE_SESSION_INACTIVE = 4003;

export type LiveMessage =
  | { type: "session.revoked"; sessionId: string; reason: RevocationReason; revokedAt: Date }
  | {
      type: "session.updated";
      sessionId: string;
      memberships: { organizationId: string; organizationSlug: string; role: string }[];
      updatedAt: Date;
    }
  | { type: "sessions.changed"; at: Date }
  | { type: "timeline.appended"; event: SecurityEvent }
  /** A tab that joined with a ticket is in: it hears its session from now on. */
  | { type: "live.ready"; sessionId: string }
  | { type: "pong"; at: Date };

export function encodeMessage(message: LiveMessage): string {
  return superjson.stringify(message);
}

export function decodeMessage(text: string): LiveMessage {
  return superjson.parse<LiveMessage>(text);
}
