/**
 * @module
 * Where a tab finds the live channel, from the auth worker's public origin: the channel of a user
 * (`/parties/user-sessions/<userId>`, `wss:` over https), the script that holds it for pages of other
 * sites (`/live.js`), and the page a signed-out tab goes to (`/auth/signed-out`).
 */
import { LIVE_PARTY } from "./route";

export const EMBED_SCRIPT_PATH = "/live.js";
export const SIGNED_OUT_PATH = "/auth/signed-out";

export function liveUrls(
  origin: string,
  userId: string,
): { channelUrl: string; scriptUrl: string; signedOutUrl: string } {
  const base = new URL(origin);
  const socket = new URL(`/parties/${LIVE_PARTY}/${encodeURIComponent(userId)}`, base);
  socket.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  return {
    channelUrl: socket.href,
    scriptUrl: new URL(EMBED_SCRIPT_PATH, base).href,
    signedOutUrl: new URL(SIGNED_OUT_PATH, base).href,
  };
}
