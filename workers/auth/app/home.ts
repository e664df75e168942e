/**
 * @module
 * The auth worker's own small pages: `/` says who is signed in and links to
 * sign in or out. A person running `npm start` lands here after login.
 */
import type { Application } from "gatehouse";
import { escapeHtml, page } from "../routes/pages";
import { SessionManager } from "../session/session-manager";

export function registerHomePage<E extends object>(app: Application<E>): void {
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
<p class="muted">${escapeHtml(user.email)}</p><ul>${orgs}</ul><p><a href="/auth/logout">Sign out</a></p>`,
    );
    res.headers.set("Cache-Control", "private, no-store");
    return res;
  });
}
