/**
 * @module
 * Where an error page lets a person go next (no dead ends): "Try again" after a wait or an
 * outage, another organization or a sign-out after a refusal, a fresh sign-in after a cancelled
 * one, and "Home" always. Every href is a path this worker chose, or the request's own path or a
 * sign-in's `return_to` re-checked by `safeReturnTo`; never a URL taken from the query as it came.
 */
import { escapeHtml } from "../../../client-sdk/html";
import type { LoginFlow } from "../flow/login-flow";
import { safeReturnTo } from "../flow/return-to";
import { LOGIN_ORGANIZATION_ID } from "../ids";
import type { OrganizationMembership } from "../types";

/** One way out of an error page: visible text and a URL (a path, or an origin the operator listed). */
export interface ErrorLink {
  readonly label: string;
  readonly href: string;
}

/** The spec's routes (`AuthServiceProvider` mounts them here). */
const LOGIN_PATH = "/auth/login";
/** A same-origin navigation to it signs out; any other request gets a page whose button POSTs with CSRF. */
const LOGOUT_PATH = "/auth/logout";
const HOME: ErrorLink = { label: "Home", href: "/" };
/** Refusals of the person in this organization: another organization may let them in. */
const ORGANIZATION_REFUSALS = new Set(["forbidden", "organization_not_allowed"]);

/**
 * The request's own URL as a same-origin path, for "Try again": only for GET and HEAD (a link
 * cannot repeat a POST), and null when the path does not pass `safeReturnTo` (`//host`, `/\host`).
 */
export function sameUrl(request: Request): string | null {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const url = new URL(request.url);
  const path = `${url.pathname}${url.search}`;
  const safe = safeReturnTo(path, "");
  return safe === "" ? null : safe;
}

/**
 * The links an error page offers when its caller gives none: "Sign in again" (`retryLogin`); for a
 * refusal in an organization, signing in to another one and signing out; for a wait (429) or an
 * outage (5xx), "Try again" on the same URL; then "Home".
 */
export function defaultErrorLinks(
  request: Request,
  status: number,
  code: string,
  options: { retryLogin?: boolean } = {},
): ErrorLink[] {
  const links: ErrorLink[] = [];
  if (ORGANIZATION_REFUSALS.has(code)) {
    links.push({ label: "Sign in to another organization", href: LOGIN_PATH });
    links.push({ label: "Sign out", href: LOGOUT_PATH });
  } else if (options.retryLogin) {
    links.push({ label: "Sign in again", href: LOGIN_PATH });
  }
  if (status === 429 || status >= 500) {
    const again = sameUrl(request);
    if (again) links.push({ label: "Try again", href: again });
  }
  links.push(HOME);
  return links;
}

/**
 * A refusal's links when the person's organizations are known: a sign-in into each of the others
 * (`/auth/login?organization_id=…`, coming back to `returnTo`), a sign-out, and "Home".
 */
export function organizationLinks(
  memberships: readonly OrganizationMembership[],
  options: { exceptId?: string | null; returnTo?: string } = {},
): ErrorLink[] {
  const others = memberships.filter(
    (m) => m.organizationId !== options.exceptId && LOGIN_ORGANIZATION_ID.test(m.organizationId),
  );
  return [
    ...others.map((m) => ({
      label: `Sign in to ${m.organizationSlug}`,
      href: loginHref({
        organizationId: m.organizationId,
        ...(options.returnTo ? { returnTo: options.returnTo } : {}),
      }),
    })),
    { label: others.length > 0 ? "Sign in to another organization" : "Sign in with another account", href: LOGIN_PATH },
    { label: "Sign out", href: LOGOUT_PATH },
    HOME,
  ];
}

/**
 * After the provider answered `error=` (the person cancelled, or was refused): "Try again" starts
 * the same sign-in again (its `return_to`, organization and step-up age, when this browser's flow
 * was verified), "Back" goes to the home of the app the person came from. Not the `return_to`
 * itself: that is almost always the guarded page that sent them to sign in, so it would only
 * start the sign-in again.
 */
export function signInAgainLinks(flow: LoginFlow | null, returnOrigins: readonly string[] = []): ErrorLink[] {
  if (!flow)
    return [
      { label: "Try again", href: LOGIN_PATH },
      { label: "Back", href: "/" },
    ];
  const returnTo = safeReturnTo(flow.returnTo, "/", returnOrigins);
  const again = loginHref({
    returnTo,
    ...(flow.organizationId && LOGIN_ORGANIZATION_ID.test(flow.organizationId)
      ? { organizationId: flow.organizationId }
      : {}),
    ...(flow.maxAge !== undefined && Number.isSafeInteger(flow.maxAge) ? { maxAge: flow.maxAge } : {}),
  });
  const back = returnTo.startsWith("/") ? "/" : `${new URL(returnTo).origin}/`;
  return [
    { label: "Try again", href: again },
    { label: "Back", href: back },
  ];
}

/** The links as a list; every label and href escaped. */
export function renderErrorLinks(links: readonly ErrorLink[]): string {
  if (links.length === 0) return "";
  const items = links.map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.label)}</a></li>`).join("");
  return `<nav aria-label="What you can do"><ul class="actions">${items}</ul></nav>`;
}

function loginHref(query: { returnTo?: string; organizationId?: string; maxAge?: number }): string {
  const params = new URLSearchParams();
  if (query.returnTo && query.returnTo !== "/") params.set("return_to", query.returnTo);
  if (query.organizationId) params.set("organization_id", query.organizationId);
  if (query.maxAge !== undefined) params.set("max_age", String(query.maxAge));
  const search = params.toString();
  return search ? `${LOGIN_PATH}?${search}` : LOGIN_PATH;
}
