/**
 * The HTTP side of `npm run load`: signs a demo user in the way a browser
 * would, but without the provider's page (GET /auth/login, the local
 * provider's `/__local/codes` for that flow's state and PKCE challenge, then
 * /auth/callback with the flow cookie), and small JSON calls. Loopback only.
 */

export interface Session {
  /** `Cookie` header carrying the session. */
  cookie: string;
  /** Public session id (from /api/me). */
  sessionId: string;
  userId: string;
}

function cookiesOf(res: Response, jar: Map<string, string>): void {
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(";")[0]!;
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    if (/Max-Age=0/i.test(line)) jar.delete(name);
    else jar.set(name, pair.slice(eq + 1));
  }
}

const header = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

/** Completes a login of `userId` on the auth worker at `authUrl` through the local provider at `idpUrl`. */
export async function login(authUrl: string, idpUrl: string, userId: string): Promise<Session> {
  const jar = new Map<string, string>();
  const start = await fetch(`${authUrl}/auth/login?return_to=/api/me`, { redirect: "manual" });
  await start.arrayBuffer();
  if (start.status !== 302) throw new Error(`GET /auth/login answered ${start.status}, expected 302`);
  cookiesOf(start, jar);
  const authorize = new URL(start.headers.get("Location")!);
  const state = authorize.searchParams.get("state");
  const issued = await fetch(`${idpUrl}/__local/codes`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      user_id: userId,
      state,
      code_challenge: authorize.searchParams.get("code_challenge"),
      redirect_uri: authorize.searchParams.get("redirect_uri"),
    }),
  });
  if (issued.status !== 201) throw new Error(`/__local/codes answered ${issued.status}: ${await issued.text()}`);
  const { code } = (await issued.json()) as { code: string };
  const callback = await fetch(`${authUrl}/auth/callback?code=${encodeURIComponent(code)}&state=${state}`, {
    headers: { Cookie: header(jar) },
    redirect: "manual",
  });
  await callback.arrayBuffer();
  if (callback.status !== 302) throw new Error(`GET /auth/callback answered ${callback.status}, expected 302`);
  cookiesOf(callback, jar);
  const cookie = header(jar);
  const me = await getJson(`${authUrl}/api/me`, cookie);
  if (me.status !== 200) throw new Error(`/api/me after login answered ${me.status}`);
  const body = me.body as { sessionId: string; user: { id: string } };
  return { cookie, sessionId: body.sessionId, userId: body.user.id };
}

/** GET with a Cookie, asking for JSON; the status and the parsed body (or null). */
export async function getJson(url: string, cookie: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers: { Cookie: cookie, Accept: "application/json" }, redirect: "manual" });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body };
}

/** Revokes one session through the admin endpoint; returns the status. */
export async function adminRevoke(authUrl: string, token: string, sessionId: string): Promise<number> {
  const res = await fetch(`${authUrl}/admin/sessions/${sessionId}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
  });
  await res.arrayBuffer();
  return res.status;
}
