/**
 * @module
 * Applies a verified provider event after the response went out (`waitUntil`):
 * looks up the organization slug when needed, then calls the user's session
 * object, retrying an RPC that failed on the way (the object dedupes by event
 * id, so a retry never acts twice). Never throws; logs event ids and types, never user data.
 */
import type { ProviderEventResult, UserSessions } from "../../../durable-objects/user-sessions";
import type { ParsedEvent } from "./events";
import type { OrganizationSlugs } from "./organizations";

const ATTEMPTS = 3;
const BACKOFF_MS = 250;

type Handled = Extract<ParsedEvent, { kind: "handled" }>;

export async function applyEvent(
  namespace: DurableObjectNamespace<UserSessions>,
  parsed: Handled,
  slugs: OrganizationSlugs | null,
): Promise<ProviderEventResult | null> {
  const event = { ...parsed.event };
  if (parsed.needsSlug && "organizationId" in event && slugs) {
    event.organizationSlug = await slugs.slugOf(event.organizationId);
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
