/**
 * @module
 * The admin API's bearer tokens, each with a label that names who acted on the user's timeline:
 * `ADMIN_API_TOKEN` (label `admin`) and `ADMIN_API_TOKENS` (`label:token,label:token`). Tokens are
 * compared as SHA-256 digests in constant time; a token never reaches a log or a timeline, only its label.
 */
import { RequestKey } from "../../../client-sdk/core/middleware";
import { labelledTokens } from "../config/rules";
import { sha256Hex, timingSafeEqual } from "../crypto";

export interface AdminTokenEnv {
  ADMIN_API_TOKEN?: string;
  ADMIN_API_TOKENS?: string;
}

/** The label of the token that authorized this admin request. */
export const AdminLabelKey = new RequestKey<string>("gatehouse.adminLabel");

/** `label:token` pairs of `ADMIN_API_TOKENS`, or null when the list is malformed (the configuration check names it). */
export function parseAdminTokens(list: string | undefined): { label: string; token: string }[] | null {
  return !list || list.trim() === "" ? [] : labelledTokens(list);
}

/** Every configured token with its label; empty when none is set (the admin routes then do not exist). */
export function adminTokens(env: AdminTokenEnv): { label: string; token: string }[] {
  return [
    ...(env.ADMIN_API_TOKEN ? [{ label: "admin", token: env.ADMIN_API_TOKEN }] : []),
    ...(parseAdminTokens(env.ADMIN_API_TOKENS) ?? []),
  ];
}

/**
 * Who the request's `Authorization: Bearer <token>` is among `tokens`: `{ label }` of the one it
 * matches, `null` when it carries a bearer token that matches none, `"missing"` when it carries
 * none. A label is never mistaken for "missing" (a token may well be labelled so).
 */
export async function adminLabelOf(
  request: Request,
  tokens: readonly { label: string; token: string }[],
): Promise<{ label: string } | "missing" | null> {
  const header = request.headers.get("Authorization");
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match) return "missing";
  const label = await matchAdminToken(match[1]!, tokens);
  return label === null ? null : { label };
}

/** The label of the configured token equal to `value`, or null (the console's break-glass form uses it too). */
export async function matchAdminToken(
  value: string,
  tokens: readonly { label: string; token: string }[],
): Promise<string | null> {
  const given = await sha256Hex(value);
  let found: string | null = null;
  // Every token is compared, so the time taken does not say which one (or whether any) matched.
  for (const { label, token } of tokens) {
    if (timingSafeEqual(given, await sha256Hex(token)) && found === null) found = label;
  }
  return found;
}
