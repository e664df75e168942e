/**
 * @module
 * The auth worker's own small pages: `/` says who is signed in, links to
 * sign in, and signs out with a CSRF-protected POST. A person running `npm start` lands here after login.
 */

import type { MiddlewareHandler } from "hono";
import type { Application } from "../../../client-sdk/core/application";
import { toHono } from "../../../client-sdk/core/middleware";
import { liveUrls } from "../live/urls";
import { CsrfMiddleware, csrfToken } from "../middleware/csrf";
import { escapeHtml, page } from "../routes/pages";
import { SessionManager } from "../session/session-manager";

/** The live channel for a page of this worker: its own cookie joins the session (no ticket). */
export function liveScriptTag(origin: string, userId: string): string {
  const urls = liveUrls(origin, userId);
  return `<script src="${escapeHtml(urls.scriptUrl)}" data-channel="${escapeHtml(urls.channelUrl)}" data-user="${escapeHtml(userId)}" data-signed-out="${escapeHtml(urls.signedOutUrl)}" defer></script>`;
}

export function registerHomePage<E extends object>(app: Application<E>): void {
  // The sign-out button POSTs with a CSRF token (issued here, on GET).
  let csrf: MiddlewareHandler | undefined;
  const csrfGuard = (): MiddlewareHandler => {
    csrf ??= toHono(new CsrfMiddleware(app.container.resolve(SessionManager)));
    return csrf;
  };
  app.hono.use("/", (c, next) => csrfGuard()(c, next));
  app.hono.get("/", async (c) => {
    const user = await app.container.resolve(SessionManager).resolveUser(c.req.raw);
    if (!user) {
      return page(
        "Gatehouse",
        `<h1>Gatehouse</h1><p>You are not signed in.</p><p><a href="/auth/login">Sign in</a></p>`,
      );
    }
    const orgs = user.memberships
      .map(
        (m) =>
          `<li>${escapeHtml(m.organizationSlug)} — ${escapeHtml(m.role)}${m.organizationId === user.organizationId ? " (current)" : ""}</li>`,
      )
      .join("");
    const res = page(
      "Gatehouse",
      `<h1>Signed in as ${escapeHtml(`${user.firstName} ${user.lastName}`.trim() || user.email)}</h1>
<p class="muted">${escapeHtml(user.email)}</p><ul>${orgs}</ul>
<form method="post" action="/auth/logout"><input type="hidden" name="_csrf" value="${escapeHtml(csrfToken(c.req.raw))}"><button type="submit">Sign out</button></form>
${liveScriptTag(new URL(c.req.url).origin, user.id)}`,
    );
    res.headers.set("Cache-Control", "private, no-store");
    return res;
  });
}
