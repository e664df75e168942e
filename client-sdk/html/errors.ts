/**
 * @module
 * The error class of the HTML layer. Only programmer errors reach it (a
 * selector HTMLRewriter cannot parse); it never carries page content, so it
 * is safe to log. Status 500: it is a bug in the worker, not bad client input.
 */
import { GatehouseError, type GatehouseErrorOptions } from "../core/errors";

export type HtmlTransformErrorCode = "invalid_selector";

export class HtmlTransformError extends GatehouseError<HtmlTransformErrorCode> {
  override name = "HtmlTransformError";

  constructor(code: HtmlTransformErrorCode, options: GatehouseErrorOptions = {}) {
    super(code, { status: 500, ...options });
  }
}
