/**
 * @module
 * `WebhookError`: the one error type of the provider-webhook route. Its codes
 * are a closed union; only the code and a fixed message reach the sender,
 * never what exactly failed inside the signature check.
 */
import { GatehouseError } from "../../../client-sdk/core/errors";

export type WebhookErrorCode =
  | "invalid_signature"
  | "stale_timestamp"
  | "malformed_body"
  | "payload_too_large"
  | "not_configured"
  /**
   * A directory user's event could not be matched (the email directory unreadable) or applied (the
   * person's object unreachable through every try): the provider retries.
   */
  | "session_store_unavailable";

export class WebhookError extends GatehouseError<WebhookErrorCode> {
  override name = "WebhookError";
}
