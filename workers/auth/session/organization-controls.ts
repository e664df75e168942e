/**
 * @module
 * Organization controls, the worker's door (contract: `client-sdk/protocol/organization-controls.ts`):
 * an organization's kill switch and its published epoch (parts: `organizations.ts`, the door to the
 * `OrganizationSessions` objects; `org-epochs.ts`, the isolate's cache of the epochs in KV), its
 * member index, and its session policy as an operator set it. Policies are checked and merged by
 * `policy.ts`, never here. Without the objects bound, a call that needs them is a 500 `config_missing`.
 */
import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import type { RevocationActor, RevocationReceipt } from "../../../client-sdk/protocol/security-record";
import type { OrganizationSessions } from "../../../durable-objects/organization-sessions";
import { AuthError } from "../errors";
import type { DeviceBindingSetting } from "./config";
import type { SessionRecord } from "./kv-session-store";
import { OrganizationEpochs } from "./org-epochs";
import { OrganizationObjects } from "./organizations";
import type { BindingRequirement, DeploymentPolicies } from "./policy";
import { bindingRequirement, mergePolicies, type PolicySource, policyOf } from "./policy";
import { bound } from "./store-call";

const UNBOUND = "This needs the organizations Durable Object namespace (SessionManager option `organizations`)";

export class OrganizationControls {
  /** The per-organization objects: member index, kill switch, operator-set policy (optional). */
  readonly #objects: OrganizationObjects | undefined;
  /** The organizations' published kill-switch epochs, as this isolate last read them. */
  readonly #epochs: OrganizationEpochs;
  readonly #policies: DeploymentPolicies;
  /** Whether the deployment binds devices: a policy may require it only then. */
  readonly #bindingOn: boolean;

  constructor(
    kv: KVNamespace,
    clock: () => number,
    policies: DeploymentPolicies & { deviceBinding?: DeviceBindingSetting },
    namespace?: DurableObjectNamespace<OrganizationSessions>,
  ) {
    this.#objects = namespace && new OrganizationObjects(namespace);
    this.#epochs = new OrganizationEpochs(kv, clock);
    this.#policies = policies;
    this.#bindingOn = (policies.deviceBinding ?? "off") !== "off";
  }

  /** True when the per-organization objects are bound. */
  get bound(): boolean {
    return this.#objects !== undefined;
  }

  /** True (or a promise of it) when one of the record's organizations ended its sessions after it was issued. */
  refuses(record: SessionRecord): boolean | Promise<boolean> {
    return this.#epochs.refuses(record);
  }

  /** Ends every session of every member issued before now (`OrganizationSessions.endSessions`). */
  async endSessions(organizationId: string, actor: RevocationActor): Promise<RevocationReceipt> {
    const receipt = await this.#required().endSessions(organizationId, actor);
    this.#epochs.forget(organizationId);
    return receipt;
  }

  /** Lifts the kill switch for what comes next; ended sessions stay ended. */
  async lift(organizationId: string): Promise<void> {
    await this.#required().lift(organizationId);
    this.#epochs.forget(organizationId);
  }

  epoch(organizationId: string): Promise<number | null> {
    return this.#required().epoch(organizationId);
  }

  /** The policy of sign-ins into the organization, and whose it is. */
  async policy(organizationId: string): Promise<{ policy: SessionPolicy; source: PolicySource }> {
    return policyOf(organizationId, await this.#required().policy(organizationId), this.#policies);
  }

  /** Sets (or with null clears) an operator's policy, checked by the caller (`validatePolicy`). */
  setPolicy(organizationId: string, policy: SessionPolicy | null): Promise<void> {
    if (policy?.deviceBindingRoles && !this.#bindingOn) {
      const message = 'policy.deviceBindingRoles needs the deployment\'s deviceBinding: "opportunistic"';
      return Promise.reject(new AuthError("invalid_policy", { status: 400, message }));
    }
    return this.#required().setPolicy(organizationId, policy);
  }

  /**
   * The policy of a sign-in by a member of `organizationIds`: each one's (an operator's if the
   * objects are bound and answer, else as configured), merged (`mergePolicies`); and whether one of
   * the `memberships` holds a role its organization requires to bind a device (`bindingRequirement`).
   */
  async signInPolicy(
    organizationIds: readonly string[],
    memberships: readonly { organizationId: string; organizationSlug?: string; role: string }[],
  ): Promise<{ policy: SessionPolicy; binding: BindingRequirement | null }> {
    const policies = new Map(
      await Promise.all(
        organizationIds.map(async (id) => {
          const operator = this.#objects ? await this.#objects.policyOrNull(id) : null;
          return [id, policyOf(id, operator, this.#policies).policy] as const;
        }),
      ),
    );
    const binding = bindingRequirement(
      memberships.map((m) => ({ ...m, policy: policies.get(m.organizationId) ?? this.#policies.sessionPolicy })),
      this.#policies,
    );
    return { policy: mergePolicies([...policies.values()], this.#policies), binding };
  }

  /** Indexes a member of each organization (best effort: the published epoch covers a miss); nothing when unbound. */
  async addMember(userId: string, organizationIds: readonly string[]): Promise<void> {
    await this.#objects?.addMember(userId, organizationIds);
  }

  /** An organization's receipt; null when the objects are not bound (no such receipt can exist here). */
  receipt(organizationId: string, id: string): Promise<RevocationReceipt | null> {
    return this.#objects ? this.#objects.receipt(organizationId, id) : Promise.resolve(null);
  }

  #required(): OrganizationObjects {
    return bound(this.#objects, UNBOUND);
  }
}
