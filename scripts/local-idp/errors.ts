/**
 * The one error class of the local identity provider. Each error knows which WorkOS wire shape it
 * answers with: OAuth errors of the authenticate endpoint `{ error, error_description }`, resource
 * API errors `{ code, message }`. Only the code and the description reach the client, never a stack.
 * It mirrors `GatehouseError` (code + status) but stands alone: this Node tool emulates WorkOS and
 * must not depend on the worker package (whose types need the Workers globals).
 */
import type { SecurityEventRefusal } from "./security-events.ts";

export type LocalIdpErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "unauthorized"
  | "entity_not_found"
  | "invalid_request_parameters"
  | "payload_too_large"
  | "unsupported_media_type"
  | "not_found"
  | "injected_fault"
  | SecurityEventRefusal;

/** `oauth`: `{ error, error_description }` (authenticate); `api`: `{ code, message }` (everything else). */
export type WireShape = "oauth" | "api";

export class LocalIdpError extends Error {
  override name = "LocalIdpError";
  readonly code: LocalIdpErrorCode;
  readonly status: number;
  readonly shape: WireShape;

  constructor(code: LocalIdpErrorCode, status: number, message: string, shape: WireShape = "api") {
    super(message);
    this.code = code;
    this.status = status;
    this.shape = shape;
  }

  /** The JSON body WorkOS would answer with. */
  toWire(): Record<string, string> {
    if (this.shape === "oauth") return { error: this.code, error_description: this.message };
    return { code: this.code, message: this.message };
  }
}

/** Shorthand for an OAuth-shaped error of the authenticate endpoint. */
export function oauthError(code: LocalIdpErrorCode, status: number, description: string): LocalIdpError {
  return new LocalIdpError(code, status, description, "oauth");
}
