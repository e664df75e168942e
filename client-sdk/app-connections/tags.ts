/**
 * @module
 * The session tag of a hibernatable WebSocket: `gh:s:<session id>`, given at `acceptWebSocket` and
 * read back with `ctx.getTags`, so a woken object finds a session's sockets with
 * `ctx.getWebSockets(sessionTag(id))` and holds no index of its own. Pure; never reads storage.
 */
import { SESSION_TAG_PREFIX } from "../protocol/app-connections";

/** The tag naming the session a socket was accepted under (1 of a socket's 10 tags, ≤ 133 characters). */
export function sessionTag(sessionId: string): string {
  return `${SESSION_TAG_PREFIX}${sessionId}`;
}

/** Whether an app's own tag would be read as a session tag (refused at accept). */
export function isSessionTag(tag: string): boolean {
  return tag.startsWith(SESSION_TAG_PREFIX);
}

/** The session a socket was accepted under (its session tag), or null for a socket without one. */
export function sessionOf(ctx: Pick<DurableObjectState, "getTags">, ws: WebSocket): string | null {
  const tag = ctx.getTags(ws).find(isSessionTag);
  return tag === undefined ? null : tag.slice(SESSION_TAG_PREFIX.length);
}
