import { env } from "cloudflare:workers";
import { it } from "vitest";
import { freshUser, ORIGIN } from "../sessions/helpers";

async function dump(res: Response) {
  const ws = res.webSocket;
  if (!ws) return { status: res.status, body: await res.text() };
  const frames: string[] = [];
  ws.accept();
  ws.addEventListener("message", (e) => { frames.push(String(e.data)); });
  const closed = await new Promise((r) => ws.addEventListener("close", (e) => { r({ code: e.code, reason: e.reason }); }));
  return { status: res.status, frames, closed };
}
it("probe", async () => {
  const u = env.USER_SESSIONS.get(env.USER_SESSIONS.newUniqueId());
  console.log("unnamed", JSON.stringify(await dump(await u.fetch(`${ORIGIN}/parties/user-sessions/x`, { headers: { Upgrade: "websocket" } }))));
  const user = freshUser();
  const stub = env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(user));
  console.log("longtag", JSON.stringify(await dump(await stub.fetch(`${ORIGIN}/parties/user-sessions/${user}`, { headers: { Upgrade: "websocket", "x-gatehouse-session": "a".repeat(300) } }))));
  console.log("unnamed-http", JSON.stringify(await dump(await u.fetch(`${ORIGIN}/x`))));
});
