/**
 * @module
 * The cost bench's administrative operations, per event rather than per person: the admin API
 * revoking every session of a user who holds 1,000, a signed provider webhook changing the role
 * of a user with 100 live sessions, and the admin API's kill switch of an organization of 1,000
 * members. Each waits for the work it started (the drain, the rewrites, the members' alarms) and
 * checks the result in KV, or throws.
 */
import { env } from "cloudflare:workers";
import type { SessionRecord } from "../../client-sdk/protocol/session-record";
import { ACME_ID } from "../../scripts/local-idp/demo-data";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import type { RawCounts } from "./ledger";
import {
  allMarked,
  BROWSER,
  entry,
  expectStatus,
  id,
  measure,
  ORIGIN,
  openSessions,
  person,
  stamp,
  userObject,
} from "./operations";

type Results = Map<string, RawCounts>;

const ADMIN = { ...BROWSER, Authorization: `Bearer ${env.ADMIN_API_TOKEN}` };

/** The admin API revokes every session of a user holding 1,000 (500 inline, the rest by alarm). */
export async function revokeAll(results: Results): Promise<void> {
  const user = id("all");
  const { ids } = await openSessions(person(user), 1_000);
  const object = userObject(user);
  results.set(
    "revoke_all_1000",
    await measure(
      async () => {
        const res = await entry.default.fetch(`${ORIGIN}/admin/users/${user}/sessions/revoke`, {
          method: "POST",
          headers: ADMIN,
        });
        await expectStatus(res, 200, "the admin revocation");
      },
      { done: async () => (await object.stats()).pendingKvDeletes === 0 },
    ),
  );
  if (!(await allMarked(ids))) throw new Error("a revoked session's KV record survived");
}

/** A signed `organization_membership.updated` for a user with 100 live sessions: every record rewritten. */
export async function roleChange(results: Results): Promise<void> {
  const user = id("roles");
  const admin = {
    ...person(user),
    memberships: [{ organizationId: ACME_ID, organizationSlug: "acme", role: "admin" }],
  };
  const { ids } = await openSessions(admin, 100, ACME_ID);
  const body = JSON.stringify({
    id: `event_cost_${stamp}`,
    event: "organization_membership.updated",
    data: {
      object: "organization_membership",
      id: `om_${user}`,
      user_id: user,
      organization_id: ACME_ID,
      organization_name: "Acme",
      status: "active",
      role: { slug: "member" },
      created_at: "2024-01-15T09:00:00.000Z",
      updated_at: new Date().toISOString(),
    },
    created_at: new Date().toISOString(),
  });
  const signature = await signWebhook(body, env.IDENTITY_WEBHOOK_SECRET, Date.now());
  const object = userObject(user);
  results.set(
    "role_change_100",
    await measure(
      async () => {
        const res = await entry.default.fetch(`${ORIGIN}/webhooks/identity`, {
          method: "POST",
          headers: { ...BROWSER, "content-type": "application/json", [WEBHOOK_SIGNATURE_HEADER]: signature },
          body,
        });
        await expectStatus(res, 200, "the membership webhook");
      },
      { done: async () => (await object.providerEventStats()).pendingRewrites === 0 },
    ),
  );
  const records = await env.SESSIONS.get(
    ids.map((s) => `sess:${s}`),
    "json",
  );
  for (const value of records.values()) {
    if ((value as SessionRecord).memberships[0]?.role !== "member") throw new Error("a session kept the old role");
  }
}

/** The admin API's kill switch of an organization of 1,000 members with one session each. */
export async function killSwitch(results: Results): Promise<void> {
  const organizationId = `org_cost_kill_${stamp}`;
  const ids: string[] = [];
  for (let i = 0; i < 1_000; i += 50) {
    const made = await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        openSessions(person(id(`kill${i + k}`), [organizationId]), 1, organizationId),
      ),
    );
    for (const m of made) ids.push(...m.ids);
  }
  results.set(
    "kill_switch_1000",
    await measure(
      async () => {
        const res = await entry.default.fetch(`${ORIGIN}/admin/organizations/${organizationId}/kill-switch`, {
          method: "POST",
          headers: ADMIN,
        });
        await expectStatus(res, 200, "the kill switch");
      },
      { done: () => allMarked(ids) },
    ),
  );
}
