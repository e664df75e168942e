/**
 * @module
 * `AuthError`: the one error type of the authentication module. Its codes
 * are a closed union; only the code and the message of a 4xx reach a client.
 */
import { GatehouseError } from "../../../client-sdk/core/errors";

export type AuthErrorCode =
  | "config_missing"
  | "invalid_cookie"
  | "invalid_state"
  | "login_expired"
  | "provider_error"
  | "provider_unavailable"
  | "access_denied"
  | "session_store_unavailable"
  | "csrf_failed"
  | "forbidden"
  | "organization_not_allowed"
  | "session_limit_reached"
  | "unauthenticated"
  | "invalid_request"
  | "service_unavailable"
  | "reauthentication_required"
  | "step_up_required"
  | "impersonation_forbidden"
  | "no_provider_tokens"
  | "refresh_unsupported"
  | "invalid_policy"
  | "device_binding_required";

export class AuthError extends GatehouseError<AuthErrorCode> {
  override name = "AuthError";
}
