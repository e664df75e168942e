/**
 * @module
 * The example consumer's error answers, never a dead end: browsers get a page (this app's look,
 * `page()`) with a way out, API clients the usual `{ error, message }` JSON with the same status
 * and headers. 403 (not a member, missing role) links to the person's other organizations, a new
 * sign-in and a sign-out form; 404 goes home; 429 says how long to wait; 5xx offers "Try again".
 * Every link is this worker's own path or the configured login URL, never text of the request;
 * everything interpolated is escaped. No inline script, no style attribute.
 */
import { jsonError, type Middleware } from "gatehouse-workers";
import { type AppUser, currentOrganizationSlug, currentUser, wantsJson } from "gatehouse-workers/client";
import { escapeHtml } from "gatehouse-workers/html";
import { consumerHeader, page } from "./pages";

interface Link {
  readonly label: string;
  readonly href: string;
}

interface ErrorPageOptions {
  title: string;
  links: readonly Link[];
  /** Signed in: the header says who, and the page carries its own sign-out form. */
  user?: AppUser | null;
  headers?: Headers;
  /** An API route: only a browser's navigation (`Accept: text/html`) gets the page. */
  api?: boolean;
}

const HOME: Link = { label: "Home", href: "/" };
/** Sign-out is a same-origin POST to `/logout` (`ServiceLogoutHandler`): a form, never a link. */
const SIGN_OUT_FORM = `<form method="post" action="/logout"><button type="submit" class="secondary">Sign out</button></form>`;

/** True when the client should get a page: any non-JSON client on a page route, a browser on an API route. */
export function wantsPage(request: Request, api = false): boolean {
  if (api) return (request.headers.get("Accept") ?? "").includes("text/html");
  return !wantsJson(request);
}

/** One error answer: JSON `{ error, message }` for API clients, else a page with `options.links`. */
export function errorAnswer(
  request: Request,
  status: number,
  code: string,
  message: string,
  options: ErrorPageOptions,
): Response {
  if (!wantsPage(request, options.api)) return jsonError(status, code, message, options.headers);
  const links = options.links.map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.label)}</a></li>`);
  const res = page(
    options.title,
    `<h1>${escapeHtml(options.title)}</h1><p>${escapeHtml(message)}</p>
<p class="muted">Error: <code>${escapeHtml(code)}</code> (${status})</p>
<nav aria-label="What you can do"><ul class="actions">${links.join("")}</ul></nav>${options.user ? SIGN_OUT_FORM : ""}`,
    status,
    options.user ? consumerHeader(options.user) : undefined,
  );
  for (const [name, value] of options.headers ?? []) {
    if (name !== "content-type" && name !== "content-length") res.headers.set(name, value);
  }
  res.headers.set("Cache-Control", "private, no-store");
  return res;
}

/**
 * 403 `forbidden`: the person is not a member of the path's organization (`not_member`) or lacks
 * the role (`role`). Links: each of their other organizations, a new sign-in (another account or
 * organization, back to the dashboard), home; and the sign-out form.
 */
export function forbiddenPage(
  request: Request,
  user: AppUser,
  slug: string | null,
  reason: "not_member" | "role",
  login: string,
): Response {
  const message =
    reason === "not_member"
      ? `You are not a member of ${slug ?? "this organization"}.`
      : "Your role in this organization does not allow this.";
  const others = user.memberships.filter((m) => m.organizationSlug !== slug);
  return errorAnswer(request, 403, "forbidden", message, {
    title: "Forbidden",
    user,
    links: [
      ...others.map((m) => ({
        label: `Open ${m.organizationSlug}`,
        href: `/org/${encodeURIComponent(m.organizationSlug)}/dashboard`,
      })),
      { label: "Sign in with another account or organization", href: login },
      HOME,
    ],
  });
}

/** 404 `not_found`: no such page (or no such organization). */
export function notFoundPage(request: Request, message = "There is no page at this address."): Response {
  return errorAnswer(request, 404, "not_found", message, { title: "Page not found", links: [HOME] });
}

/**
 * 429 `rate_limited` from a limiter's answer: the page says how long to wait (its `Retry-After`)
 * and keeps every header (`Retry-After`, `RateLimit`, `RateLimit-Policy`); JSON clients get the
 * limiter's own answer unchanged.
 */
export function rateLimitedPage(request: Request, limited: Response, options: { api?: boolean } = {}): Response {
  if (!wantsPage(request, options.api)) return limited;
  const given = limited.headers.get("Retry-After") ?? "";
  const seconds = /^\d{1,6}$/.test(given) ? Number(given) : 60;
  const wait = seconds === 1 ? "1 second" : `${seconds} seconds`;
  return errorAnswer(request, 429, "rate_limited", `Too many requests. Please wait ${wait} and try again.`, {
    title: "Too many requests",
    links: [...tryAgain(request), HOME],
    headers: limited.headers,
    ...(options.api ? { api: true } : {}),
  });
}

/**
 * 5xx: the auth service is unavailable (503), failed or timed out (502/504), or this worker's
 * configuration is refused (503 `service_unavailable`). The code is kept, the message is fixed
 * (the JSON of a refused configuration is unchanged: `This service is not available.`).
 */
export function unavailablePage(
  request: Request,
  status: number,
  code: string,
  options: { headers?: Headers; api?: boolean } = {},
): Response {
  const message =
    status === 503 ? "This service is not available." : "Something went wrong on our side. Please try again.";
  return errorAnswer(request, status, code, message, {
    title: status === 503 ? "Service unavailable" : "Something went wrong",
    links: [...tryAgain(request), HOME],
    ...options,
  });
}

/**
 * Wraps a guard or limiter: an error it answers itself (not one from the routes after it) goes
 * through `render`, which returns the page to send instead, or null to keep the answer.
 */
export function withErrorPages(
  inner: Middleware,
  render: (request: Request, answer: Response) => Response | null | Promise<Response | null>,
): Middleware {
  return {
    async handle(request, next) {
      let passed = false;
      const answer = await inner.handle(request, (forwarded) => {
        passed = true;
        return next(forwarded);
      });
      if (passed || answer.status < 400) return answer;
      return (await render(request, answer)) ?? answer;
    },
  };
}

/** A guard's own 5xx (the auth service is down, failed or timed out) as a page; anything else unchanged. */
export function outagePages(options: { api?: boolean } = {}) {
  return async (request: Request, answer: Response): Promise<Response | null> => {
    if (answer.status < 500 || !wantsPage(request, options.api)) return null;
    return unavailablePage(request, answer.status, await codeOf(answer), { headers: answer.headers, ...options });
  };
}

/** `RoleMiddleware`'s 403 as this app's page: the person is known (the page guard ran first). */
export function roleRefusalPages(login: (request: Request) => string) {
  return (request: Request, answer: Response): Response | null => {
    const user = currentUser(request);
    if (answer.status !== 403 || !user || !wantsPage(request)) return null;
    return forbiddenPage(request, user, currentOrganizationSlug(request), "role", login(request));
  };
}

/** "Try again": this request's own path, for a GET or HEAD (a link cannot repeat a POST). */
function tryAgain(request: Request): Link[] {
  if (request.method !== "GET" && request.method !== "HEAD") return [];
  const url = new URL(request.url);
  // `https://app//evil.com` has the path `//evil.com`: as an href that would be another host.
  if (url.pathname.startsWith("//")) return [];
  return [{ label: "Try again", href: `${url.pathname}${url.search}` }];
}

/** The JSON `error` code of an answer, if it is one of ours; otherwise a generic one. */
async function codeOf(answer: Response): Promise<string> {
  try {
    const body = (await answer.clone().json()) as { error?: unknown };
    return typeof body.error === "string" && /^[a-z_]{1,64}$/.test(body.error) ? body.error : "internal_error";
  } catch {
    return "internal_error";
  }
}
