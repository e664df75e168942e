/**
 * @module
 * Builds the features of one `UserSessions` object and wires them together: the shared object
 * (context.ts) with its alarm, then security record, lifecycle, organization controls, provider
 * access and device binding, each handed only what it uses. Organization controls use lifecycle (a kill switch
 * revokes) and lifecycle calls back into them (a written KV record catches up on membership
 * changes): that call is a closure here, so no two files import each other. The class itself is
 * `own` (context.ts). Also the counts `stats` answers.
 */
import type { Connection } from "partyserver";
import { objectNow } from "../clock";
import { scheduleAlarm } from "./alarms";
import { type AppConnections, checkApps } from "./app-connections";
import {
  batchSetting,
  type OwnMethods,
  type ServerEnv,
  type SessionObject,
  sessionsNamespace,
  userIdOf,
} from "./context";
import { DeviceBinding } from "./device-binding";
import { DEFAULT_REVOCATION_BATCH, Lifecycle } from "./lifecycle";
import { joinedSockets } from "./live";
import { DEFAULT_REWRITE_BATCH, OrganizationControls } from "./organization-controls";
import { ProviderAccess, type TokenRefresher } from "./provider-access";
import { countRows } from "./schema";
import { destinationsOf, SecurityRecord } from "./security-record";

export interface Features {
  object: SessionObject;
  lifecycle: Lifecycle;
  record: SecurityRecord;
  organizations: OrganizationControls;
  access: ProviderAccess;
  binding: DeviceBinding;
}

/** The class's statics, which a subclass or `createAuthWorker` may set (`refreshTokens` is read at each refresh). */
export interface FeatureSettings {
  sessionsBinding: string;
  securityEventsQueue: string;
  retentionMs: number;
  refreshTokens: TokenRefresher | null;
  /** The apps told of ended sessions (app-connections/), checked when set. */
  apps: AppConnections;
  /** The shared-signals streams object's binding, or null (no streams). */
  ssfStreamsBinding: string | null;
}

export function buildFeatures(
  ctx: DurableObjectState,
  env: ServerEnv,
  settings: FeatureSettings,
  server: OwnMethods & { getConnections(tag?: string): Iterable<Connection> },
): Features {
  const object: SessionObject = {
    storage: ctx.storage,
    sql: ctx.storage.sql,
    kv: sessionsNamespace(env, settings.sessionsBinding),
    retentionMs: settings.retentionMs,
    own: server,
    userId: () => userIdOf(ctx),
    joined: (sessionId) => joinedSockets((tag) => server.getConnections(tag), sessionId),
    scheduleAlarm: (continuation = false) =>
      scheduleAlarm(ctx.storage, {
        now: objectNow(),
        nextRewrite: organizations.nextRewrite(),
        nextDelivery: record.nextDelivery(),
        drainFailed: lifecycle.drainFailed,
        continuation,
      }),
    waitUntil: (work) => ctx.waitUntil(work),
  };
  const apps = checkApps(settings.apps, "UserSessions.apps");
  const record = new SecurityRecord(
    object,
    destinationsOf(env, settings.securityEventsQueue, apps, settings.ssfStreamsBinding),
  );
  const lifecycle = new Lifecycle(object, {
    record,
    batch: batchSetting(env.GATEHOUSE_REVOCATION_BATCH, DEFAULT_REVOCATION_BATCH),
    catchUp: (sessionId, now) => organizations.catchUp(sessionId, now),
  });
  const organizations = new OrganizationControls(object, {
    lifecycle,
    record,
    rewriteBatch: batchSetting(env.GATEHOUSE_REWRITE_BATCH, DEFAULT_REWRITE_BATCH),
  });
  const access = new ProviderAccess(object, { refresher: () => settings.refreshTokens, env });
  const binding = new DeviceBinding(
    object.sql,
    (sessionId, now) => object.own.isActive(sessionId, now),
    (sessionId, alg) => record.deviceBound(sessionId, lifecycle.whereabouts(sessionId), alg),
  );
  return { object, lifecycle, record, organizations, access, binding };
}

/** Counts for tests and operators (`UserSessions.stats`): rows, tombstones, pending KV marks, sockets, events. */
export interface ObjectStats {
  sessions: number;
  tombstones: number;
  pendingKvDeletes: number;
  sockets: number;
  events: number;
  pendingDeliveries: number;
}

export function objectStats(sql: SqlStorage, sockets: Iterable<Connection>): ObjectStats {
  return {
    sessions: countRows(sql, "sessions"),
    tombstones: countRows(sql, "tombstones"),
    pendingKvDeletes: countRows(sql, "kv_deletes"),
    sockets: [...sockets].length,
    events: countRows(sql, "timeline"),
    pendingDeliveries: countRows(sql, "outbox"),
  };
}
