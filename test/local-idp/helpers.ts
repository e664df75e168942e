/**
 * Shared test helpers for the local identity provider: start a server, build a real WorkOS SDK
 * client pointed at it, and sign in through the HTML page the way a browser would (fetch the
 * authorize URL, submit the chosen form, read the redirect). Test-only; never used by the server.
 */
import { WorkOS } from "@workos-inc/node";
import { type LocalIdp, type LocalIdpOptions, startLocalIdp } from "../../scripts/local-idp/index.ts";

export const API_KEY = "sk_test_idp_suite";
export const CLIENT_ID = "client_idp_suite";
export const REDIRECT_URI = "http://127.0.0.1:8787/auth/callback";

export function startTestIdp(options: Partial<LocalIdpOptions> = {}): Promise<LocalIdp> {
  return startLocalIdp({ apiKey: API_KEY, clientId: CLIENT_ID, ...options });
}

/** The real SDK, exactly as Gatehouse configures it for the local provider. */
export function sdk(idp: LocalIdp, options: { apiKey?: string; maxRetries?: number; timeout?: number } = {}) {
  return new WorkOS(options.apiKey ?? API_KEY, {
    apiHostname: "127.0.0.1",
    port: idp.port,
    https: false,
    clientId: CLIENT_ID,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout,
  });
}

export async function resetIdp(idp: LocalIdp): Promise<void> {
  const res = await fetch(`${idp.url}/__local/reset`, { method: "POST" });
  if (!res.ok) throw new Error(`reset failed: ${res.status}`);
}

export async function localPost(idp: LocalIdp, path: string, body: unknown): Promise<Response> {
  return fetch(`${idp.url}/__local/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

export interface PageForm {
  action: string;
  user: string;
  organization: string;
  fields: Record<string, string>;
}

/** Every user/organization form on the sign-in page. */
export function parseForms(html: string): PageForm[] {
  const forms: PageForm[] = [];
  const formRe =
    /<form method="post" action="([^"]+)" data-user="([^"]*)" data-organization="([^"]*)">([\s\S]*?)<\/form>/g;
  for (const [, action, user, organization, inner] of html.matchAll(formRe)) {
    const fields: Record<string, string> = {};
    for (const [, name, value] of (inner ?? "").matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      fields[name ?? ""] = value ?? "";
    }
    forms.push({ action: action ?? "", user: user ?? "", organization: organization ?? "", fields });
  }
  return forms;
}

/** Submits one form of the page like a browser would and returns the response (redirects not followed). */
export function submitForm(pageUrl: string, fields: Record<string, string>, action = "/user_management/authorize") {
  return fetch(new URL(action, pageUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
}

/** Opens the authorization URL, picks `userId` (into `organizationId`, "" for none) and returns the redirect. */
export async function signInThroughPage(authorizationUrl: string, userId: string, organizationId: string) {
  const page = await fetch(authorizationUrl);
  if (page.status !== 200) throw new Error(`authorize page answered ${page.status}`);
  const form = parseForms(await page.text()).find((f) => f.user === userId && f.organization === organizationId);
  if (!form) throw new Error(`no form for ${userId} / ${organizationId}`);
  const res = await submitForm(authorizationUrl, form.fields, form.action);
  const location = res.headers.get("location");
  if (res.status !== 302 || location === null) throw new Error(`form answered ${res.status}`);
  return new URL(location);
}

/** An SDK, a PKCE pair and the authorization URL of one hosted-login flow. */
export async function startFlow(idp: LocalIdp, options: { organizationId?: string; state?: string } = {}) {
  const workos = sdk(idp);
  const pkce = await workos.pkce.generate();
  const { state = "st", ...rest } = options;
  const url = workos.userManagement.getAuthorizationUrl({
    provider: "authkit",
    clientId: CLIENT_ID,
    redirectUri: REDIRECT_URI,
    state,
    codeChallenge: pkce.codeChallenge,
    codeChallengeMethod: "S256",
    ...rest,
  });
  return { workos, pkce, url };
}

/** A full login through the page with PKCE; returns the SDK's authentication response. */
export async function login(idp: LocalIdp, userId: string, organizationId: string) {
  const { workos, pkce, url } = await startFlow(idp);
  const callback = await signInThroughPage(url, userId, organizationId);
  return workos.userManagement.authenticateWithCode({
    clientId: CLIENT_ID,
    code: callback.searchParams.get("code") ?? "",
    codeVerifier: pkce.codeVerifier,
  });
}
