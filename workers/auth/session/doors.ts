/**
 * @module
 * The session core wired once: the settings, the KV record store, the signer, and one door per
 * feature, each given only the neighbours it calls (policy ← organization controls ← security
 * record ← device binding ← lifecycle; provider access resolves a cookie through the manager). `SessionManager` is
 * the facade over what this builds; nothing here holds state of its own or does I/O.
 */
import { HmacSigner } from "../crypto";
import { type ResolvedSessionConfig, resolveSessionConfig, type SessionManagerOptions } from "./config";
import { type BindingSession, DeviceBinding } from "./device-binding";
import { KVSessionStore } from "./kv-session-store";
import { requestMeta, SessionLifecycle } from "./lifecycle";
import { OrganizationControls } from "./organization-controls";
import { ProviderAccess, type ResolveCookie } from "./provider-access";
import { SecurityRecord } from "./security-record";
import { SessionObjects } from "./session-objects";
import { UserDirectory } from "./user-directory";

export interface SessionDoors {
  config: ResolvedSessionConfig;
  store: KVSessionStore;
  directory: UserDirectory;
  signer: HmacSigner;
  lifecycle: SessionLifecycle;
  record: SecurityRecord;
  organizations: OrganizationControls;
  provider: ProviderAccess;
  binding: DeviceBinding;
}

/** Builds the doors over one KV namespace; `resolve` is how provider access and device binding find a cookie's session. */
export function sessionDoors(
  kv: KVNamespace,
  secret: string | readonly string[],
  options: SessionManagerOptions,
  resolve: ResolveCookie,
): SessionDoors {
  const config = resolveSessionConfig(options);
  const objects = options.userSessions && new SessionObjects(options.userSessions, config.clock);
  const store = new KVSessionStore(kv, config.clock);
  const directory = new UserDirectory(kv, config.clock);
  const signer = new HmacSigner(secret);
  const organizations = new OrganizationControls(kv, config.clock, config, options.organizations);
  const record = new SecurityRecord(config, store, signer, objects, organizations);
  const hooks = options.hooks ?? {};
  const binding = new DeviceBinding({
    config,
    store,
    signer,
    objects,
    record,
    // The registration route's session may be one that must bind and has not yet (`pendingBinding`): that is how it binds.
    resolve: async (cookie, pendingBinding): Promise<BindingSession | null> => {
      const session = await lifecycle.resolve(cookie, {}, { pendingBinding });
      if (!session) return null;
      const { record } = session;
      return {
        sessionId: session.sessionId,
        userId: session.user.id,
        createdAt: record.createdAt,
        requirement: record.bindingRequired ?? null,
        bound: record.bound === true,
      };
    },
    meta: (request) => requestMeta(request, config.location),
  });
  const parts = { config, store, signer, directory, objects, organizations, record, binding, hooks };
  const lifecycle: SessionLifecycle = new SessionLifecycle(parts);
  const provider = new ProviderAccess(signer, objects, resolve);
  return { config, store, directory, signer, lifecycle, record, organizations, provider, binding };
}
