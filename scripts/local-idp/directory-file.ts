/**
 * The local identity provider's directory (people, organizations, memberships and their roles)
 * kept in one JSON file, so what a person changed on the dashboard survives a restart: read once
 * at start (a tagged result; a file that is missing is simply no directory yet), written whole on
 * every change through a temporary file and a rename, so a crash never leaves half a file.
 * Never holds sign-in codes, sessions or refresh tokens: those live in memory and die with the server.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { MembershipRecord, OrganizationRecord, UserRecord } from "./store.ts";

/** Version 1 of the file: `{ "version": 1, "users": […], "organizations": […], "memberships": […] }`. */
export interface DirectorySnapshot {
  version: 1;
  users: UserRecord[];
  organizations: OrganizationRecord[];
  memberships: MembershipRecord[];
}

export type LoadedDirectory = { ok: true; value: DirectorySnapshot | null } | { ok: false; reason: string };

/** Reads `path`: the snapshot, null when there is no file yet, or why it cannot be used. */
export function loadDirectory(path: string): LoadedDirectory {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT") return { ok: true, value: null };
    return { ok: false, reason: `cannot read it (${typeof code === "string" ? code : "unknown error"})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: "it is not JSON" };
  }
  return parseDirectory(parsed);
}

/** Writes the snapshot to `path` atomically: a temporary file beside it, then a rename over it. */
export function saveDirectory(path: string, snapshot: DirectorySnapshot): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(snapshot, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** Checks the shape of a parsed file: every record complete, every membership pointing at a known user and organization. */
export function parseDirectory(value: unknown): LoadedDirectory {
  if (!isObject(value) || value.version !== 1) return { ok: false, reason: "it is not a version 1 directory file" };
  const { users, organizations, memberships } = value;
  if (!Array.isArray(users) || !users.every(isUser)) return { ok: false, reason: "its users are malformed" };
  if (!Array.isArray(organizations) || !organizations.every(isOrganization)) {
    return { ok: false, reason: "its organizations are malformed" };
  }
  if (!Array.isArray(memberships) || !memberships.every(isMembership)) {
    return { ok: false, reason: "its memberships are malformed" };
  }
  const userIds = new Set(users.map((u) => u.id));
  const organizationIds = new Set(organizations.map((o) => o.id));
  if (userIds.size !== users.length || organizationIds.size !== organizations.length) {
    return { ok: false, reason: "it names an id twice" };
  }
  if (!memberships.every((m) => userIds.has(m.userId) && organizationIds.has(m.organizationId))) {
    return { ok: false, reason: "a membership names an unknown user or organization" };
  }
  return { ok: true, value: { version: 1, users, organizations, memberships } };
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown, keys: readonly string[]): value is Json {
  return isObject(value) && keys.every((k) => typeof value[k] === "string" && value[k] !== "");
}

function isUser(value: unknown): value is UserRecord {
  return (
    strings(value, ["id", "email", "firstName", "lastName", "createdAt", "updatedAt"]) &&
    (value.lastSignInAt === null || typeof value.lastSignInAt === "string")
  );
}

function isOrganization(value: unknown): value is OrganizationRecord {
  return strings(value, ["id", "name", "externalId", "domain", "domainId", "createdAt"]);
}

const STATUSES: readonly unknown[] = ["active", "inactive", "pending"];

function isMembership(value: unknown): value is MembershipRecord {
  return (
    strings(value, ["id", "userId", "organizationId", "role", "createdAt", "updatedAt"]) &&
    STATUSES.includes(value.status)
  );
}
