/**
 * @module
 * The admin console's receipts: the page every revocation answers with (by receipt id). Behind the
 * console guard (gate.ts); the id is checked before it names an object.
 */
import type { Application } from "../../../../../client-sdk/core/application";
import { isReceiptId } from "../../../ids";
import { csrfToken } from "../../../middleware/csrf";
import { authErrorPage, errorPage } from "../../../pages";
import { CONSOLE_PATH, receiptBody } from "../views";
import type { ConsoleContext } from "./context";

export function registerReceipts<E extends object>(app: Application<E>, shared: ConsoleContext): void {
  app.hono.get(`${CONSOLE_PATH}/console/receipts/:receiptId`, async (c) => {
    const request = c.req.raw;
    const id = c.req.param("receiptId");
    if (!isReceiptId(id)) return errorPage(request, 400, "invalid_receipt_id", "The receipt id is not valid.");
    try {
      const receipt = await shared.sessions().receipt(id);
      if (!receipt) return errorPage(request, 404, "receipt_not_found", "No receipt has that id.");
      return shared.html(c, "Receipt", receiptBody(shared.operatorOf(c), csrfToken(request), receipt));
    } catch (err) {
      return authErrorPage(request, err);
    }
  });
}
