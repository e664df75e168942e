/**
 * @module
 * The auth worker's landing page `/`: what this is, who is signed in and their organizations,
 * links to sign in, the account pages, the admin console and the docs; signing out is the header's
 * CSRF-protected POST. A person running `npm start` lands here after login.
 */

import type { MiddlewareHandler } from "hono";
import type { Application } from "../../../client-sdk/core/application";
import { toHono } from "../../../client-sdk/core/middleware";
import { liveUrls } from "../live/urls";
import { CsrfMiddleware, csrfToken } from "../middleware/csrf";
import { escapeHtml, page } from "../pages";
import { siteHeader } from "../pages/site-header";
import { publicOrigin } from "../provider";
import { SessionManager } from "../session/session-manager";

/** The live channel for a page of this worker (`origin`: its public one): its own cookie joins the session (no ticket). */
export function liveScriptTag(origin: string, userId: string): string {
  const urls = liveUrls(origin, userId);
  return `<script src="${escapeHtml(urls.scriptUrl)}" data-channel="${escapeHtml(urls.channelUrl)}" data-user="${escapeHtml(userId)}" data-signed-out="${escapeHtml(urls.signedOutUrl)}" defer></script>`;
}

/** The repository's README: how to run, configure and deploy Gatehouse. */
export const DOCS_URL = "https://github.com/gatehouse-workers/gatehouse-workers#readme";

/** Where to go from the landing page, signed in or not. */
const PLACES = `<h2>Where to go</h2><ul class="cards">
<li><a href="/account/sessions">Your sessions</a><br><span class="muted">Every device signed in to your account; sign any of them out.</span></li>
<li><a href="/account/activity">Account activity</a><br><span class="muted">Sign-ins, sign-outs and other security events.</span></li>
<li><a href="/admin">Admin console</a><br><span class="muted">For operators: find a person, see their sessions, end them.</span></li>
<li><a href="${escapeHtml(DOCS_URL)}">Documentation</a><br><span class="muted">The README: run it, configure it, deploy it.</span></li>
</ul>`;

export function registerHomePage<E extends object>(app: Application<E>): void {
  // The sign-out button POSTs with a CSRF token (issued here, on GET).
  let csrf: MiddlewareHandler | undefined;
  const csrfGuard = (): MiddlewareHandler => {
    csrf ??= toHono(new CsrfMiddleware(app.container.resolve(SessionManager), { origin: publicOrigin(app.container) }));
    return csrf;
  };
  app.hono.use("/", (c, next) => csrfGuard()(c, next));
  app.hono.get("/", async (c) => {
    const user = await app.container.resolve(SessionManager).resolveUser(c.req.raw);
    if (!user) {
      return page(
        "Gatehouse",
        `<h1>Gatehouse</h1>
<p>Sign-in, server-side sessions and instant sign-out for Cloudflare Workers. This is the auth worker: it signs people in through the identity provider and keeps their sessions, so any of them can be ended at once.</p>
<p>You are not signed in.</p><p><a class="button" href="/auth/login">Sign in</a></p>${PLACES}`,
        200,
        undefined,
        siteHeader({ user: null, current: "/" }),
      );
    }
    const orgs = user.memberships
      .map(
        (m) =>
          `<li>${escapeHtml(m.organizationSlug)} — ${escapeHtml(m.role)}${m.organizationId === user.organizationId ? " (current)" : ""}</li>`,
      )
      .join("");
    const token = csrfToken(c.req.raw);
    const res = page(
      "Gatehouse",
      `<h1>Signed in as ${escapeHtml(`${user.firstName} ${user.lastName}`.trim() || user.email)}</h1>
<p class="muted">${escapeHtml(user.email)}</p>
<h2>Your organizations</h2>${orgs ? `<ul>${orgs}</ul>` : `<p class="muted">You are not a member of any organization.</p>`}
${PLACES}
${liveScriptTag(publicOrigin(app.container), user.id)}`,
      200,
      undefined,
      siteHeader({ user, csrf: token, current: "/" }),
    );
    res.headers.set("Cache-Control", "private, no-store");
    return res;
  });
}
