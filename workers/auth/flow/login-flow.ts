/**
 * @module
 * Per-login-flow state: a one-time `state` and a PKCE verifier kept in a
 * short-lived cookie whose name carries the flow id, so two tabs signing in
 * at once each keep their own. The cookie is `__Host-` (HttpOnly, Secure,
 * SameSite=Lax) whenever the redirect URL is https, so no sibling subdomain
 * can plant one. It never holds anything but this flow's own values. With a
 * signer (the auth worker always has one) its value is signed (HMAC under the
 * session secret, purpose `login-flow|`, bound to the state nonce): a browser
 * cannot swap the organization or return path. The spec's two-argument
 * `createLoginHandler` has no secret: its flow is unsigned, and the callback
 * treats it as a plain sign-in (the organization is checked against the
 * memberships, `return_to` again, a step-up never counts).
 */
import { buildSetCookie, parseCookie } from "../cookies";
import {
  base64url,
  fromBase64url,
  type HmacSigner,
  type RandomSource,
  randomToken,
  sha256Base64url,
  timingSafeEqual,
} from "../crypto";

/** How long a person has between starting and finishing a login. */
export const LOGIN_FLOW_TTL_SECONDS = 600;
const MAX_OPEN_FLOWS = 5;
const BASE_NAME = "gh_login_";
const PURPOSE = "login-flow|";

export interface LoginFlow {
  state: string;
  codeVerifier: string;
  returnTo: string;
  organizationId?: string;
  /** A step-up: the person must have authenticated at most this many seconds before the callback. */
  maxAge?: number;
  /** ms since the epoch */
  expiresAt: number;
}

function prefix(secure: boolean): string {
  return secure ? "__Host-" : "";
}

function cookieName(state: string, secure: boolean): string {
  return `${prefix(secure)}${BASE_NAME}${state.slice(0, 16)}`;
}

function cookieOptions(secure: boolean, maxAge: number) {
  return { path: "/", httpOnly: true, secure, sameSite: "Lax" as const, maxAge };
}

/** Starts a flow: fresh state and verifier, the S256 challenge, and the Set-Cookie headers to send. */
export async function startLoginFlow(
  request: Request,
  input: {
    returnTo: string;
    organizationId?: string;
    maxAge?: number;
    secure: boolean;
    now: number;
    /** null: an unsigned flow (the spec's two-argument login handler). */
    signer: HmacSigner | null;
    random?: RandomSource;
  },
): Promise<{ flow: LoginFlow; codeChallenge: string; setCookies: string[] }> {
  const flow: LoginFlow = {
    state: randomToken(32, input.random),
    codeVerifier: randomToken(32, input.random),
    returnTo: input.returnTo,
    ...(input.organizationId ? { organizationId: input.organizationId } : {}),
    ...(input.maxAge !== undefined ? { maxAge: input.maxAge } : {}),
    expiresAt: input.now + LOGIN_FLOW_TTL_SECONDS * 1000,
  };
  const payload = base64url(new TextEncoder().encode(JSON.stringify(flow)));
  const value = input.signer ? `${payload}.${await input.signer.sign(signedData(flow.state, payload))}` : payload;
  const setCookies = [
    buildSetCookie(cookieName(flow.state, input.secure), value, cookieOptions(input.secure, LOGIN_FLOW_TTL_SECONDS)),
  ];
  // Bound the number of open flows a browser carries: clear the others past the limit.
  const open = Object.keys(parseCookie(request.headers.get("Cookie") ?? "")).filter((n) =>
    n.startsWith(`${prefix(input.secure)}${BASE_NAME}`),
  );
  if (open.length >= MAX_OPEN_FLOWS) {
    for (const name of open) setCookies.push(buildSetCookie(name, "", cookieOptions(input.secure, 0)));
  }
  return { flow, codeChallenge: await sha256Base64url(flow.codeVerifier), setCookies };
}

export type FlowCheck =
  /** `signed`: the cookie carried a valid signature (an unsigned one has no dot at all). */
  | { ok: true; flow: LoginFlow; signed: boolean; clearCookie: string }
  | { ok: false; reason: "missing" | "mismatch" | "expired"; clearCookie?: string };

/** What the flow cookie's signature covers: the purpose, the state nonce and the payload. */
function signedData(state: string, payload: string): string {
  return `${PURPOSE}${state}|${payload}`;
}

/**
 * Finds and checks the flow for a callback's `state`: the cookie must carry a valid
 * signature over this state and its payload. One-time: the caller always clears the cookie.
 * With `requireSigned`, an unsigned flow (one this worker's login handler never writes) is a
 * `mismatch`, after the expiry check, so an expired one still reads as expired.
 */
export async function takeLoginFlow(
  request: Request,
  state: string,
  secure: boolean,
  now: number,
  signer: HmacSigner,
  requireSigned = false,
): Promise<FlowCheck> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(state)) return { ok: false, reason: "mismatch" };
  const name = cookieName(state, secure);
  const clearCookie = buildSetCookie(name, "", cookieOptions(secure, 0));
  const raw = parseCookie(request.headers.get("Cookie") ?? "")[name];
  if (!raw) return { ok: false, reason: "missing" };
  const dot = raw.lastIndexOf(".");
  const signed = dot !== -1;
  const payload = signed ? raw.slice(0, dot) : raw;
  if (!payload || (signed && !(await signer.verify(signedData(state, payload), raw.slice(dot + 1))))) {
    return { ok: false, reason: "mismatch", clearCookie };
  }
  const flow = decodeFlow(payload);
  if (!flow || !timingSafeEqual(flow.state, state)) return { ok: false, reason: "mismatch", clearCookie };
  if (now >= flow.expiresAt) return { ok: false, reason: "expired", clearCookie };
  if (requireSigned && !signed) return { ok: false, reason: "mismatch", clearCookie };
  return { ok: true, flow, signed, clearCookie };
}

function decodeFlow(raw: string): LoginFlow | null {
  const bytes = fromBase64url(raw);
  if (!bytes) return null;
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<LoginFlow>;
    if (
      typeof v.state !== "string" ||
      typeof v.codeVerifier !== "string" ||
      typeof v.returnTo !== "string" ||
      typeof v.expiresAt !== "number" ||
      (v.organizationId !== undefined && typeof v.organizationId !== "string") ||
      (v.maxAge !== undefined && !Number.isSafeInteger(v.maxAge))
    ) {
      return null;
    }
    return v as LoginFlow;
  } catch {
    return null;
  }
}
