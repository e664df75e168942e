/**
 * The WorkOS resource endpoints the SDK reads: users, organizations (by id and by external id),
 * organization memberships (filtered, cursor-paginated) and the JWKS. Read-only: nothing here
 * changes state. Every endpoint but the public JWKS requires the API key.
 */
import { authenticate, revokeSession } from "./authenticate.ts";
import { type IdpContext, type IdpRequest, type Route, requireApiKey } from "./context.ts";
import { LocalIdpError } from "./errors.ts";
import { field, json, type Reply } from "./http.ts";
import { listJson, membershipJson, organizationJson, parsePageParams, userJson } from "./wire.ts";

function getUser(ctx: IdpContext, req: IdpRequest): Reply {
  requireApiKey(ctx, req);
  const id = req.params[0] ?? "";
  const user = ctx.store.user(id);
  if (!user) throw new LocalIdpError("entity_not_found", 404, `User not found: '${id}'.`);
  return json(200, userJson(user));
}

function getOrganization(ctx: IdpContext, req: IdpRequest): Reply {
  requireApiKey(ctx, req);
  const id = req.params[0] ?? "";
  const org = ctx.store.organization(id);
  if (!org) throw new LocalIdpError("entity_not_found", 404, `Organization not found: '${id}'.`);
  return json(200, organizationJson(org));
}

function getOrganizationByExternalId(ctx: IdpContext, req: IdpRequest): Reply {
  requireApiKey(ctx, req);
  const externalId = req.params[0] ?? "";
  const org = ctx.store.organizationByExternalId(externalId);
  if (!org) throw new LocalIdpError("entity_not_found", 404, `Organization not found: '${externalId}'.`);
  return json(200, organizationJson(org));
}

const STATUSES = new Set(["active", "inactive", "pending"]);

function listMemberships(ctx: IdpContext, req: IdpRequest): Reply {
  requireApiKey(ctx, req);
  const query = req.url.searchParams;
  const userId = field(query, "user_id") ?? undefined;
  const organizationId = field(query, "organization_id") ?? undefined;
  if (userId === undefined && organizationId === undefined) {
    throw new LocalIdpError("invalid_request_parameters", 422, "Provide user_id or organization_id.");
  }
  const statuses = field(query, "statuses")?.split(",") ?? ["active"];
  if (!statuses.every((s) => STATUSES.has(s))) {
    throw new LocalIdpError("invalid_request_parameters", 422, "statuses may contain active, inactive, pending.");
  }
  const page = parsePageParams(query);
  const memberships = ctx.store.memberships({ userId, organizationId, statuses });
  return json(
    200,
    listJson(memberships, page, (m) => membershipJson(m, ctx.store.organization(m.organizationId))),
  );
}

function jwks(ctx: IdpContext, req: IdpRequest): Reply {
  if (req.params[0] !== ctx.config.clientId) throw new LocalIdpError("entity_not_found", 404, "Unknown client id.");
  return json(200, ctx.signer.jwks, { "cache-control": "public, max-age=300" });
}

/** Path segments are captured as `([^/]+)` and URI-decoded by the server before handlers see them. */
export const API_ROUTES: Route[] = [
  {
    method: "POST",
    pattern: /^\/user_management\/authenticate$/,
    endpoint: "authenticate",
    page: false,
    handler: authenticate,
  },
  {
    method: "GET",
    pattern: /^\/user_management\/users\/([^/]+)$/,
    endpoint: "users",
    page: false,
    handler: getUser,
  },
  {
    method: "GET",
    pattern: /^\/organizations\/external_id\/([^/]+)$/,
    endpoint: "organizations",
    page: false,
    handler: getOrganizationByExternalId,
  },
  {
    method: "GET",
    pattern: /^\/organizations\/([^/]+)$/,
    endpoint: "organizations",
    page: false,
    handler: getOrganization,
  },
  {
    method: "GET",
    pattern: /^\/user_management\/organization_memberships$/,
    endpoint: "organization_memberships",
    page: false,
    handler: listMemberships,
  },
  {
    method: "POST",
    pattern: /^\/user_management\/sessions\/revoke$/,
    endpoint: "sessions_revoke",
    page: false,
    handler: revokeSession,
  },
  { method: "GET", pattern: /^\/sso\/jwks\/([^/]+)$/, endpoint: "jwks", page: false, handler: jwks },
];
