/**
 * @module
 * The organization kill switches this user's object was told of (`organization_epochs`): one epoch
 * per organization, and epochs only grow. A session created before the largest is never active
 * again here, whatever its KV record says. Storage only; lifecycle reads `EPOCH_FLOOR` in
 * `isActive`, organization controls store epochs.
 */

/** SQL for the creation time a session must reach to be active: the largest epoch, else 0. */
export const EPOCH_FLOOR = "COALESCE((SELECT MAX(epoch) FROM organization_epochs), 0)";

/** Remembers an organization's kill switch; an older epoch never replaces a newer one. */
export function storeEpoch(sql: SqlStorage, organizationId: string, epoch: number): void {
  sql.exec(
    `INSERT INTO organization_epochs (organization_id, epoch) VALUES (?, ?)
     ON CONFLICT (organization_id) DO UPDATE SET epoch = MAX(epoch, excluded.epoch)`,
    organizationId,
    epoch,
  );
}
