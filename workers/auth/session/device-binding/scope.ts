/**
 * @module
 * Which hosts a device-bound session covers (spec `#algo-create-session`, `#format-session-scope-instructions`):
 * the same hosts as the session cookie. A host-only cookie gets a host-only DBSC session (no origin:
 * the registration URL's, the auth worker's); a cookie with a Domain gets a site-wide one
 * (`include_site: true`) named by the site's origin, so the browser refreshes the bound cookie on
 * every host that receives it. Pure: the site comes from configuration, never from a request's Host.
 */

/** The scope the session instructions name: host-only, or the whole site of `origin`. */
export type BindingScope = { includeSite: false } | { includeSite: true; origin: string };

/**
 * The site origin of a site-wide device-bound session, or undefined for a host-only one.
 * `site` (option `deviceBindingSite`) defaults to `https://<cookie domain>`; it must be a bare
 * https origin whose host is the cookie's domain or a parent of it. Chrome further allows
 * `include_site` only when that host is the registrable domain (eTLD+1, `session_inclusion_rules.cc`
 * `IsIncludeSiteAllowed`), which needs the public suffix list to check: a deployment whose cookie
 * domain lies below its site (`apps.example.com`) names the site. Throws a TypeError naming the option.
 */
export function bindingSite(domain: string | undefined, site: string | undefined, secure: boolean): string | undefined {
  if (domain === undefined) {
    if (site === undefined) return undefined;
    throw new TypeError(
      "deviceBindingSite needs cookie.domain: a host-only session cookie gets a host-only device-bound session",
    );
  }
  if (!secure) {
    throw new TypeError(
      "deviceBinding with cookie.domain needs https: browsers refuse a site-wide device-bound session on plain http",
    );
  }
  const origin = site ?? `https://${domain.toLowerCase()}`;
  let parsed: URL | null = null;
  try {
    parsed = new URL(origin);
  } catch {}
  if (!parsed || parsed.origin !== origin || parsed.protocol !== "https:") {
    throw new TypeError(`deviceBindingSite must be a bare https origin such as "https://example.com", got ${origin}`);
  }
  const host = parsed.hostname;
  // A site is a registrable domain: at least two labels, not an IP address (Chrome: no eTLD+1, no include_site).
  if (!host.includes(".") || /^[\d.]+$/.test(host) || host.startsWith("[")) {
    throw new TypeError(`deviceBindingSite must name a site (a registrable domain), got ${origin}`);
  }
  const cookieDomain = domain.toLowerCase();
  if (cookieDomain !== host && !cookieDomain.endsWith(`.${host}`)) {
    throw new TypeError(
      `deviceBindingSite ${origin} does not cover cookie.domain ${domain}: the bound cookie would reach hosts the session does not refresh on`,
    );
  }
  return origin;
}

/** The scope for a resolved site (`bindingSite`'s answer). */
export function bindingScope(site: string | undefined): BindingScope {
  return site === undefined ? { includeSite: false } : { includeSite: true, origin: site };
}
