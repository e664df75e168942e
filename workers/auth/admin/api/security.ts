/**
 * @module
 * The admin API of the security record: a user's timeline and devices, a revocation receipt by id,
 * and an organization's kill switch and session policy. Behind the admin token (index.ts), whose
 * label names the actor on every member's timeline. Every id is checked before it names an object.
 * Every state change is a POST (`…/kill-switch`, `…/kill-switch/lift`, `…/policy`, `…/policy/clear`).
 * A policy body is taken whole and checked by `session/policy.ts` (`validatePolicy`), never field by field.
 */
import type { Application } from "../../../../client-sdk/core/application";
import type { SessionPolicy } from "../../../../client-sdk/protocol/policy";
import { isOrganizationId, isReceiptId, isUserId } from "../../ids";
import { POLICY_JSON_HINT, validatePolicy } from "../../session/policy";
import type { SessionManager } from "../../session/session-manager";
import type { OperatorLog } from "../operator-log";
import { adminActor, invalidUserId, json, logApiAction } from "./respond";

const MAX_BODY = 4096;

export function registerSecurityRoutes<E extends object>(
  app: Application<E>,
  sessions: () => SessionManager,
  log: () => OperatorLog,
): void {
  const hono = app.hono;

  hono.get("/admin/users/:userId/timeline", async (c) => {
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return invalidUserId();
    const limit = Number(c.req.query("limit") ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return json(400, { error: "invalid_limit", message: "limit is a whole number from 1 to 100" });
    }
    const cursor = c.req.query("cursor") ?? null;
    if (cursor !== null && !/^c[0-9a-z]{1,11}$/.test(cursor)) {
      return json(400, { error: "invalid_cursor", message: "cursor is not one this timeline issued" });
    }
    return json(200, { userId, ...(await sessions().timeline(userId, { cursor, limit })) });
  });

  hono.get("/admin/users/:userId/devices", async (c) => {
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return invalidUserId();
    return json(200, { userId, devices: await sessions().devices(userId) });
  });

  hono.get("/admin/receipts/:receiptId", async (c) => {
    const id = c.req.param("receiptId");
    if (!isReceiptId(id))
      return json(400, {
        error: "invalid_receipt_id",
        message: "A receipt id is rcpt.u.<user>.<n> or rcpt.o.<organization>.<n>",
      });
    const receipt = await sessions().receipt(id);
    return receipt ? json(200, receipt) : json(404, { error: "receipt_not_found", message: "No receipt has that id" });
  });

  // The organizations' controls need the OrganizationSessions objects.
  hono.use("/admin/organizations/*", async (c, next) => {
    if (!sessions().hasOrganizations) {
      return json(503, {
        error: "not_configured",
        message: "Bind the OrganizationSessions objects (ORGANIZATIONS) first",
      });
    }
    const organizationId = c.req.param("organizationId") ?? c.req.path.split("/")[3];
    if (!isOrganizationId(organizationId)) {
      return json(400, { error: "invalid_organization_id", message: "The organization id is not valid" });
    }
    await next();
  });

  hono.get("/admin/organizations/:organizationId/kill-switch", async (c) => {
    const organizationId = c.req.param("organizationId");
    return json(200, { organizationId, epoch: await sessions().organizationEpoch(organizationId) });
  });

  hono.post("/admin/organizations/:organizationId/kill-switch", async (c) => {
    const organizationId = c.req.param("organizationId");
    // On every member's timeline: the kill switch, thrown by this admin token's label.
    const actor = adminActor(c.req.raw);
    const receipt = await sessions().endOrganizationSessions(organizationId, {
      kind: "kill_switch",
      label: actor.label ?? "admin",
    });
    await logApiAction(log(), actor, "organization.ended", organizationId, receipt.id);
    return json(200, { organizationId, receipt });
  });

  hono.post("/admin/organizations/:organizationId/kill-switch/lift", async (c) => {
    const organizationId = c.req.param("organizationId");
    await sessions().liftOrganizationSessions(organizationId);
    return json(200, { organizationId, epoch: null });
  });

  hono.get("/admin/organizations/:organizationId/policy", async (c) => {
    const organizationId = c.req.param("organizationId");
    return json(200, { organizationId, ...(await sessions().organizationPolicy(organizationId)) });
  });

  hono.post("/admin/organizations/:organizationId/policy", async (c) => {
    const organizationId = c.req.param("organizationId");
    const text = await c.req.text();
    if (text.length > MAX_BODY) return json(413, { error: "payload_too_large", message: "The policy is at most 4 KB" });
    let policy: SessionPolicy;
    try {
      policy = validatePolicy(JSON.parse(text), "policy");
    } catch (err) {
      const message =
        err instanceof RangeError || (err instanceof TypeError && err.message.startsWith("policy."))
          ? err.message
          : POLICY_JSON_HINT;
      return json(400, { error: "invalid_policy", message });
    }
    await sessions().setOrganizationPolicy(organizationId, policy);
    return json(200, { organizationId, policy, source: "operator" });
  });

  hono.post("/admin/organizations/:organizationId/policy/clear", async (c) => {
    const organizationId = c.req.param("organizationId");
    await sessions().setOrganizationPolicy(organizationId, null);
    return json(200, { organizationId, ...(await sessions().organizationPolicy(organizationId)) });
  });
}
