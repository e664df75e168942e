/**
 * @module
 * The auth module's door to the per-organization objects (`OrganizationSessions`): the member
 * index (kept at sign-in and by membership webhooks, best effort: a missed member is still refused
 * by the published epoch), the session policy an operator set, and the kill switch. Failures of a
 * call that answers an operator map to 503 (`storeCall`); the index is never worth failing a sign-in.
 */

import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import type { RevocationActor, RevocationReceipt } from "../../../client-sdk/protocol/security-record";
import type { OrganizationSessions } from "../../../durable-objects/organization-sessions";
import { storeCall } from "./store-call";

export class OrganizationObjects {
  readonly #namespace: DurableObjectNamespace<OrganizationSessions>;

  constructor(namespace: DurableObjectNamespace<OrganizationSessions>) {
    this.#namespace = namespace;
  }

  /** Indexes the user as a member of each organization; failures are logged, never thrown. */
  async addMember(userId: string, organizationIds: readonly string[]): Promise<void> {
    await Promise.all(
      organizationIds.map((id) =>
        this.#stub(id)
          .addMember(userId)
          .catch((err: unknown) => {
            console.error(
              "gatehouse: could not index an organization member",
              err instanceof Error ? err.message : err,
            );
          }),
      ),
    );
  }

  removeMember(userId: string, organizationId: string): Promise<void> {
    return this.#stub(organizationId).removeMember(userId);
  }

  /** The organization's policy as an operator set it, or null; a failure reads as null (the default applies). */
  async policyOrNull(organizationId: string): Promise<SessionPolicy | null> {
    try {
      return await this.#stub(organizationId).policy();
    } catch (err) {
      console.error(
        "gatehouse: could not read an organization's session policy",
        err instanceof Error ? err.message : err,
      );
      return null;
    }
  }

  policy(organizationId: string): Promise<SessionPolicy | null> {
    return storeCall(() => this.#stub(organizationId).policy());
  }

  setPolicy(organizationId: string, policy: SessionPolicy | null): Promise<void> {
    return storeCall(() => this.#stub(organizationId).setPolicy(policy));
  }

  epoch(organizationId: string): Promise<number | null> {
    return storeCall(() => this.#stub(organizationId).epoch());
  }

  endSessions(organizationId: string, actor: RevocationActor): Promise<RevocationReceipt> {
    return storeCall(() => this.#stub(organizationId).endSessions(actor));
  }

  lift(organizationId: string): Promise<void> {
    return storeCall(() => this.#stub(organizationId).lift());
  }

  receipt(organizationId: string, id: string): Promise<RevocationReceipt | null> {
    return storeCall(() => this.#stub(organizationId).receipt(id));
  }

  #stub(organizationId: string): DurableObjectStub<OrganizationSessions> {
    return this.#namespace.get(this.#namespace.idFromName(organizationId));
  }
}
