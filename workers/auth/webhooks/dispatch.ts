/**
 * @module
 * Applies a verified provider event after the response went out (`waitUntil`):
 * looks up the organization slug when needed, then calls the user's session
 * object, retrying an RPC that failed on the way (the object dedupes by event
 * id, so a retry never acts twice). A membership event also keeps the
 * organization's member index (best effort, with `organizations`). Never
 * throws; logs event ids and types, never user data.
 */
import type { ProviderEventResult, UserSessions } from "../../../durable-objects/user-sessions";
import type { OrganizationObjects } from "../session/organizations";
import type { ParsedEvent } from "./events";
import type { OrganizationSlugs } from "./organizations";

const ATTEMPTS = 3;
const BACKOFF_MS = 250;

type Handled = Extract<ParsedEvent, { kind: "handled" }>;

export async function applyEvent(
  namespace: DurableObjectNamespace<UserSessions>,
  parsed: Handled,
  slugs: OrganizationSlugs | null,
  organizations: OrganizationObjects | null = null,
): Promise<ProviderEventResult | null> {
  const event = { ...parsed.event };
  // A membership event only: a directory event names an organization too, but grants nothing.
  if ("role" in event) {
    if (parsed.needsSlug && slugs) event.organizationSlug = await slugs.slugOf(event.organizationId);
    if (organizations) await indexMember(organizations, parsed.userId, event);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      // A fresh stub per attempt: a stub that threw may be broken.
      const stub = namespace.get(namespace.idFromName(parsed.userId));
      const result = await stub.applyProviderEvent(event);
      console.debug(`gatehouse: provider event ${event.type} ${event.id}: ${result.outcome}`);
      return result;
    } catch (err) {
      const retryable = typeof err === "object" && err !== null && (err as { retryable?: unknown }).retryable === true;
      if (!retryable || attempt >= ATTEMPTS) {
        console.error(
          `gatehouse: could not apply provider event ${event.type} ${event.id}; the provider will not redeliver it`,
          err instanceof Error ? err.message : err,
        );
        return null;
      }
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * attempt));
    }
  }
}

/** A granted membership joins the organization's index, an ended one leaves it; a failure is logged (the epoch still covers a member the index missed). */
async function indexMember(
  organizations: OrganizationObjects,
  userId: string,
  event: { organizationId: string; role: string | null },
): Promise<void> {
  if (event.role !== null) return organizations.addMember(userId, [event.organizationId]);
  await organizations.removeMember(userId, event.organizationId).catch((err: unknown) => {
    console.error("gatehouse: could not update an organization's member index", err instanceof Error ? err.name : err);
  });
}
