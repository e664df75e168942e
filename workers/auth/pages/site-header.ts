/**
 * @module
 * The header of the auth worker's pages: where to go (home, the account pages, the admin console)
 * and, when the page knows, who is signed in with a sign-out button (a POST with the CSRF field) or
 * a sign-in link. It only describes the header; `renderPage` escapes and renders it.
 */
import type { PageHeader } from "../../../client-sdk/html/theme";

/** Where every page of the auth worker lets a person go. */
export const SITE_LINKS = [
  { label: "Home", href: "/" },
  { label: "Sessions", href: "/account/sessions" },
  { label: "Activity", href: "/account/activity" },
  { label: "Console", href: "/admin" },
] as const;

export interface SiteHeaderInput {
  /** Signed in: who (name and email). Null: signed out (a sign-in link). Absent: unknown (neither). */
  user?: { firstName: string; lastName: string; email: string } | null;
  /** The page's CSRF token, for the sign-out form (needed when `user` is set). */
  csrf?: string;
  /** The path of this page, marked as current in the navigation. */
  current?: string;
}

/** The auth worker's header for a page. */
export function siteHeader(input: SiteHeaderInput = {}): PageHeader {
  const { user } = input;
  const name = user ? `${user.firstName} ${user.lastName}`.trim() || user.email : "";
  return {
    brand: { label: "Gatehouse", href: "/" },
    links: SITE_LINKS,
    ...(input.current ? { current: input.current } : {}),
    person: user ? { name, email: user.email } : null,
    signOut: user ? { action: "/auth/logout", ...(input.csrf === undefined ? {} : { csrf: input.csrf }) } : null,
    signIn: user === null ? { label: "Sign in", href: "/auth/login" } : null,
  };
}
