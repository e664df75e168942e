/**
 * What KV holds for a session, for tests of every suite: a live record, or the revoked mark that
 * replaces it for a day (whose session it was). Reads the real local KV binding. Test-only.
 */
import { isRevokedMark, isSessionRecord } from "../../client-sdk/protocol/session-record";

/** True while KV holds a live session record under the id (a revoked mark is not one). */
export async function hasLiveRecord(kv: KVNamespace, sessionId: string): Promise<boolean> {
  return isSessionRecord(await kv.get(`sess:${sessionId}`, "json"));
}

/** The user a revoked mark names, or null when KV holds no mark under the id. */
export async function revokedMarkOwner(kv: KVNamespace, sessionId: string): Promise<string | null> {
  const value = await kv.get(`sess:${sessionId}`, "json");
  return isRevokedMark(value) ? value.userId : null;
}
