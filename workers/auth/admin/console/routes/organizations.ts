/**
 * @module
 * The admin console's organizations: end every member's sessions (the kill switch), answered by its
 * receipt and written to the operator log. Behind the console guard (gate.ts); 404 without the
 * organizations' objects bound.
 */
import type { Application } from "../../../../../client-sdk/core/application";
import { isOrganizationId } from "../../../ids";
import { authErrorPage, errorPage } from "../../../pages";
import { CONSOLE_PATH } from "../views";
import { type ConsoleContext, loggedReceipt } from "./context";

export function registerOrganizations<E extends object>(app: Application<E>, shared: ConsoleContext): void {
  app.hono.post(`${CONSOLE_PATH}/console/organizations/end`, async (c) => {
    const request = c.req.raw;
    const manager = shared.sessions();
    if (!manager.hasOrganizations) return errorPage(request, 404, "not_found", "There is no such page.");
    const form = await request.formData().catch(() => new FormData());
    const organizationId = String(form.get("organizationId") ?? "").trim();
    if (!isOrganizationId(organizationId)) {
      return errorPage(request, 400, "invalid_organization_id", "The organization id is not valid.");
    }
    try {
      const operator = shared.operatorOf(c);
      const receipt = await manager.endOrganizationSessions(organizationId, {
        kind: "kill_switch",
        label: operator.label,
      });
      return await loggedReceipt(shared, operator, "organization.ended", organizationId, receipt.id);
    } catch (err) {
      return authErrorPage(request, err);
    }
  });
}
