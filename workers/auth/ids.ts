/**
 * @module
 * Validation of the identifiers that arrive in URLs and RPC arguments.
 * A value that fails here never reaches storage or a Durable Object name.
 */

/** Provider user ids (WorkOS `user_01…`) and test ids: letters, digits, `_`, `-`; 1-128 chars. */
export const USER_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isUserId(value: unknown): value is string {
  return typeof value === "string" && USER_ID.test(value);
}

/** Organization ids (WorkOS `org_01…`): the same alphabet as user ids. */
export function isOrganizationId(value: unknown): value is string {
  return typeof value === "string" && USER_ID.test(value);
}

/** An organization id a sign-in may name (`/auth/login?organization_id=…`): 1-64 characters of that alphabet. */
export const LOGIN_ORGANIZATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Receipt ids: `rcpt.u.<userId>.<n>` (a user's object) or `rcpt.o.<organizationId>.<n>`. */
export function isReceiptId(value: unknown): value is string {
  return typeof value === "string" && /^rcpt\.[uo]\.[A-Za-z0-9_-]{1,128}\.\d{1,15}$/.test(value);
}

/** Public session ids are 64 lowercase hex digits (SHA-256 of the cookie's token, session/token.ts). */
export function isSessionId(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}
