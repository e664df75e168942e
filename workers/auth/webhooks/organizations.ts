/**
 * @module
 * Organization slugs for membership events: the event names the organization
 * by id only, so its slug is read with the SDK's `organizations.getOrganization`
 * under the same rule as sign-in (`external_id`, else the slugified name) and
 * cached briefly per isolate. Never throws: a failed lookup is null (the
 * session keeps the slug it has; a brand-new membership waits for the next sign-in).
 */
import type { WorkOS } from "@workos-inc/node";
import { withDeadline } from "../../../client-sdk/core/deadline";
import { slugify } from "../identity/default-identity-client";

export interface OrganizationSlugOptions {
  /** How long a looked-up slug is reused. Default 5 minutes. */
  ttlMs?: number;
  /** A lookup slower than this counts as failed. Default 5 000 ms. */
  timeoutMs?: number;
  clock?: () => number;
}

const MAX_ENTRIES = 1_000;

export class OrganizationSlugs {
  readonly #workos: WorkOS;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #clock: () => number;
  readonly #cache = new Map<string, { slug: string; until: number }>();

  constructor(workos: WorkOS, options: OrganizationSlugOptions = {}) {
    this.#workos = workos;
    this.#ttlMs = options.ttlMs ?? 5 * 60 * 1000;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#clock = options.clock ?? Date.now;
  }

  async slugOf(organizationId: string): Promise<string | null> {
    const now = this.#clock();
    const hit = this.#cache.get(organizationId);
    if (hit && hit.until > now) return hit.slug;
    try {
      // The SDK's workerd HTTP client ignores its own timeout, so bound the call here.
      const org = await withDeadline(
        this.#workos.organizations.getOrganization(organizationId),
        this.#timeoutMs,
        () => new Error(`no answer within ${this.#timeoutMs} ms`),
      );
      const slug = org.externalId || slugify(org.name);
      if (!slug) return null;
      if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
      this.#cache.set(organizationId, { slug, until: now + this.#ttlMs });
      return slug;
    } catch (err) {
      console.warn(
        "gatehouse: could not look up an organization for a membership event",
        err instanceof Error ? err.message : err,
      );
      return null;
    }
  }
}
