/**
 * @module
 * Feature contract — organization controls: an organization's kill switch (its epoch), as the
 * organization object keeps it and as KV publishes it to every location's session resolution.
 */

/** An organization's kill switch: sessions issued before `epoch` (ms) are refused; null: none. */
export interface OrganizationEpoch {
  organizationId: string;
  epoch: number | null;
}

/**
 * An organization's kill switch, published in the session namespace under `org-epoch:{orgId}` so
 * every location's resolution sees it within KV's propagation window: JSON `{ epoch }` (ms);
 * sessions of its members issued before the epoch are refused. Never deleted (no TTL):
 * what a kill switch ended stays ended after it is lifted; epochs only grow.
 */
export const ORG_EPOCH_PREFIX = "org-epoch:";

export function orgEpochKey(organizationId: string): string {
  return `${ORG_EPOCH_PREFIX}${organizationId}`;
}
