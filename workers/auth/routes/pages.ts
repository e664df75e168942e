/**
 * @module
 * Small server-rendered pages for the auth routes and guards: every error a
 * person can meet (expired login, provider down, CSRF refusal, 403) answers
 * a readable HTML page, or JSON when the client asked for JSON. Everything
 * interpolated is HTML-escaped; nothing internal is ever shown.
 */
import { wantsJson } from "../../../client-sdk/core/auth-context";
import { escapeHtml } from "../../../client-sdk/html";
import { AuthError } from "../errors";

export { escapeHtml, wantsJson };

export function page(title: string, body: string, status = 200, headers?: HeadersInit): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem}a,button{color:#0969da}.muted{color:#59636e}code{background:#f6f8fa;padding:.1em .3em}
.alert{background:#fff8c5;border-left:4px solid #d4a72c;padding:.25rem .5rem}</style>
</head><body>${body}</body></html>`;
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
  options: { title?: string; retryLogin?: boolean; headers?: HeadersInit } = {},
): Response {
  if (wantsJson(request)) {
    const res = Response.json({ error: code, message }, { status, headers: options.headers });
    res.headers.set("Cache-Control", "no-store");
    return res;
  }
  const title =
    options.title ?? (status >= 500 ? "Something went wrong" : status === 403 ? "Forbidden" : "Cannot continue");
  const retry = options.retryLogin ? `<p><a href="/auth/login">Sign in again</a></p>` : "";
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p class="muted">Error: <code>${escapeHtml(code)}</code> (${status})</p>${retry}`,
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
