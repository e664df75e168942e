/**
 * An app worker's `src/index.ts`: an HTML page and a JSON API guarded by the auth worker over the
 * service binding AUTH (`ServiceAuthMiddleware`, the page with the live channel and its ticket
 * route), and a same-origin sign-out (`ServiceLogoutHandler`). README.md shows this file as it is
 * (test/cli/readme-files.test.ts). Renders text only; the app never holds a session secret.
 */

export function renderAppSource(name: string): string {
  return `/**
 * An app worker: its page and its JSON API are guarded by the auth worker over the service binding
 * AUTH, which answers for every session (a session revoked there is refused here on the next
 * request). This worker never holds the auth worker's secrets or its session store.
 */
import { Application, toHono } from "gatehouse-workers";
import {
  type AuthServiceBinding,
  AuthServiceClient,
  currentUser,
  DEFAULT_TICKET_PATH,
  ServiceAuthMiddleware,
  ServiceLogoutHandler,
} from "gatehouse-workers/client";
import { escapeHtml, renderPage } from "gatehouse-workers/html";
import { SecurityHeadersMiddleware } from "gatehouse-workers/security-headers";

interface Env {
  /** The auth worker's AuthService entrypoint ("services" in wrangler.jsonc). */
  AUTH: AuthServiceBinding;
  /** The auth worker's login page: .dev.vars locally, "vars" in wrangler.jsonc when deployed. */
  AUTH_LOGIN_URL: string;
}

export default Application.handler<Env>({
  // Security headers on every answer; the page's Content-Security-Policy admits the live script.
  middleware: [new SecurityHeadersMiddleware()],
  setup(app) {
    const auth = new AuthServiceClient(app.env.AUTH);
    const loginUrl = app.env.AUTH_LOGIN_URL;
    // A visit without a session goes to loginUrl and comes back here (return_to) when the auth
    // worker's AUTH_RETURN_ORIGINS lists this origin. \`live: true\` writes the live script into the
    // HTML this guard answers to a browser's navigation: the tab signs out the moment its session
    // is revoked anywhere, and reloads when its roles change.
    const page = toHono(new ServiceAuthMiddleware(auth, { loginUrl, live: true }));
    app.hono.use("/", page);
    // Where the live script fetches a fresh ticket: the page guard answers it itself.
    app.hono.use(DEFAULT_TICKET_PATH, page);
    // The API: without a session, 401 JSON (never a redirect).
    app.hono.use("/api/*", toHono(new ServiceAuthMiddleware(auth, { loginUrl, api: true })));

    app.hono.get("/", (c) => {
      const user = currentUser(c.req.raw)!; // the guard lets only a signed-in person through
      const name = \`\${user.firstName} \${user.lastName}\`.trim() || user.email;
      return c.html(
        renderPage({
          title: ${JSON.stringify(name)},
          // The sign-out button is a POST form to /logout on this origin (below).
          header: {
            brand: { label: ${JSON.stringify(name)}, href: "/" },
            person: { name, email: user.email },
            signOut: { action: "/logout" },
          },
          body: \`<h1>Hello \${escapeHtml(name)}</h1>
<p>The auth worker checks your session on every request. <a href="/api/me">/api/me</a> is the JSON.</p>\`,
        }),
      );
    });
    app.hono.get("/api/me", (c) => c.json({ user: currentUser(c.req.raw) }));
    // Sign-out: a POST from this origin only (else 403), the session revoked at the auth worker,
    // then 303 to "/". Every other method answers 405.
    const logout = new ServiceLogoutHandler(auth);
    app.hono.all("/logout", (c) => logout.handle(c.req.raw));
  },
});
`;
}
