/**
 * @module
 * Small server-rendered pages for the auth routes and guards: every error a
 * person can meet (expired login, provider down, CSRF refusal, 403) answers
 * a readable HTML page, or JSON when the client asked for JSON. Everything
 * interpolated is HTML-escaped; nothing internal is ever shown.
 */
import { wantsJson } from "../../../client-sdk/auth-context";
import { escapeHtml } from "../../../client-sdk/html";
import { type PageHeader, renderPage } from "../../../client-sdk/html/theme";
import { AuthError } from "../errors";
import { defaultErrorLinks, type ErrorLink, renderErrorLinks } from "./error-links";
import { siteHeader } from "./site-header";

export { escapeHtml, wantsJson };

/**
 * A page in the shared look (client-sdk/html/theme.ts). `header`: the site header (site-header.ts);
 * absent, the navigation without a person (the page does not know who is signed in); null, none.
 */
export function page(
  title: string,
  body: string,
  status = 200,
  headers?: HeadersInit,
  header: PageHeader | null = siteHeader(),
): Response {
  const html = renderPage({ title, body, header });
  const res = new Response(html, { status, headers });
  res.headers.set("Content-Type", "text/html; charset=utf-8");
  res.headers.set("Cache-Control", "no-store");
  return res;
}

/** An error page (or JSON body) for a status, a code and a message meant for people. */
export function errorPage(
  request: Request,
  status: number,
  code: string,
  message: string,
  options: { title?: string; retryLogin?: boolean; headers?: HeadersInit; links?: readonly ErrorLink[] } = {},
): Response {
  if (wantsJson(request)) {
    const res = Response.json({ error: code, message }, { status, headers: options.headers });
    res.headers.set("Cache-Control", "no-store");
    return res;
  }
  const title =
    options.title ??
    (status >= 500
      ? "Something went wrong"
      : status === 403
        ? "Forbidden"
        : status === 404
          ? "Page not found"
          : "Cannot continue");
  // Never a dead end: the caller's links, or the status's (error-links.ts); always "Home".
  const links = renderErrorLinks(options.links ?? defaultErrorLinks(request, status, code, options));
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p class="muted">Error: <code>${escapeHtml(code)}</code> (${status})</p>${links}`,
    status,
    options.headers,
  );
}

/** Renders any error thrown in an auth route: `AuthError`s by their status, anything else as a plain 500. */
export function authErrorPage(request: Request, err: unknown, headers?: HeadersInit): Response {
  if (err instanceof AuthError && err.status < 600) {
    if (err.status >= 500) console.error("gatehouse: auth error", err.code, err.cause ?? "");
    return errorPage(
      request,
      err.status,
      err.code,
      err.status >= 500 && err.status !== 502 && err.status !== 503 ? "Internal Server Error" : err.message,
      {
        retryLogin: err.status !== 403,
        ...(headers ? { headers } : {}),
      },
    );
  }
  console.error("gatehouse: unexpected auth error", err);
  return errorPage(request, 500, "internal_error", "Internal Server Error", headers ? { headers } : {});
}
