/**
 * The local identity provider's shortcut for its sign-in page, for tests of a worker's login
 * (workerd or Node: fetch only): a one-time code for `userId` in the flow that `authorize` (the
 * provider URL a worker's /auth/login redirected to) started. Test-only.
 */
export async function providerCode(
  idpUrl: string,
  authorize: URL,
  userId: string,
  redirectUri: string,
  organizationId: string | null = null,
  /** When the person authenticated, Unix seconds (default: now); a past one makes an old sign-in. */
  authTime?: number,
): Promise<Response> {
  return fetch(`${idpUrl}/__local/codes`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      user_id: userId,
      state: authorize.searchParams.get("state"),
      code_challenge: authorize.searchParams.get("code_challenge"),
      redirect_uri: redirectUri,
      ...(organizationId ? { organization_id: organizationId } : {}),
      ...(authTime !== undefined ? { auth_time: authTime } : {}),
    }),
  });
}

/** `providerCode`, for a flow that must get a code: its value. */
export async function codeFor(
  idpUrl: string,
  authorize: URL,
  userId: string,
  redirectUri: string,
  organizationId: string | null = null,
): Promise<string> {
  const res = await providerCode(idpUrl, authorize, userId, redirectUri, organizationId);
  if (res.status !== 201) throw new Error(`the local provider refused a code: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { code: string }).code;
}
