/**
 * @module
 * `OrgResolver` (spec): reads an organization slug from a request with an
 * ordered list of strategies. Structurally an `OrgResolvable`
 * (`{ resolve(request): { slug } | null }`). An invalid slug counts as no
 * match, so a hostile header can never reach a tenant lookup.
 */
import type { OrgResolutionStrategy } from "../types";

/** Lowercase letters, digits and `-`, 1 to 63 characters (a DNS label). */
export const ORG_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const IGNORED_SUBDOMAINS = new Set(["www", "api"]);
const STRATEGIES: readonly OrgResolutionStrategy[] = ["subdomain", "path-prefix", "header"];

export interface OrgResolvable {
  resolve(request: Request): { slug: string } | null;
}

export class OrgResolver implements OrgResolvable {
  readonly strategies: readonly OrgResolutionStrategy[];

  constructor(strategies: OrgResolutionStrategy[]) {
    for (const s of strategies) {
      if (!STRATEGIES.includes(s))
        throw new TypeError(`Unknown organization strategy "${s}" (use ${STRATEGIES.join(", ")})`);
    }
    this.strategies = [...strategies];
  }

  resolve(request: Request): { slug: string } | null {
    let url: URL | undefined;
    for (const strategy of this.strategies) {
      let slug: string | null = null;
      if (strategy === "header") {
        slug = request.headers.get("X-Org-Slug");
      } else {
        url ??= new URL(request.url);
        slug = strategy === "subdomain" ? fromSubdomain(url.hostname) : fromPath(url.pathname);
      }
      if (slug !== null && ORG_SLUG.test(slug)) return { slug };
    }
    return null;
  }
}

/** The first label of a host with at least three labels (`acme.example.com`); IPs never match. */
function fromSubdomain(hostname: string): string | null {
  if (/^[\d.]+$/.test(hostname) || hostname.includes(":")) return null;
  const labels = hostname.toLowerCase().split(".");
  const first = labels[0];
  if (labels.length < 3 || !first || IGNORED_SUBDOMAINS.has(first)) {
    // `acme.localhost` is a subdomain too, for local development.
    if (labels.length === 2 && labels[1] === "localhost" && first && !IGNORED_SUBDOMAINS.has(first)) return first;
    return null;
  }
  return first;
}

/** `/org/<slug>/...` → slug. */
function fromPath(pathname: string): string | null {
  const segments = pathname.split("/");
  return segments[1] === "org" && segments[2] ? segments[2] : null;
}
