/**
 * @module
 * The live channel's two public pages: `GET /live.js`, the script any page carries to hear its
 * session live (tabs of one origin share one socket; see client/embed.ts), and `GET
 * /auth/signed-out`, where a tab goes when its session ends ("You were signed out", with a way
 * back in to the page it was on when that page is this worker's or an allowed app's).
 */
import type { Application } from "../../../client-sdk/core/application";
import { serveScript } from "../account/live-script-route";
import { safeReturnTo } from "../flow/return-to";
import { escapeHtml, page } from "../pages";
import { AuthConfigToken } from "../provider";
import { EMBED_SCRIPT } from "./client/embed-script";
import { EMBED_SCRIPT_PATH, SIGNED_OUT_PATH } from "./urls";

export function registerLivePages<E extends object>(app: Application<E>): void {
  app.hono.get(EMBED_SCRIPT_PATH, (c) => serveScript(c.req.raw, EMBED_SCRIPT));
  app.hono.get(SIGNED_OUT_PATH, (c) => {
    const origins = app.container.resolve(AuthConfigToken).returnOrigins;
    const back = safeReturnTo(c.req.query("return_to") ?? "/", "/", origins);
    const login = `/auth/login?return_to=${encodeURIComponent(back)}`;
    const res = page(
      "You were signed out",
      `<h1>You were signed out</h1><p>Your session ended on another device or was ended for you.</p><p><a href="${escapeHtml(login)}">Sign in again</a></p>`,
    );
    res.headers.set("Cache-Control", "no-store");
    return res;
  });
}
