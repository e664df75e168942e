/**
 * "This wasn't me — sign out everywhere" (issue 17): every Gatehouse session of the person ends,
 * and so does every session at the identity provider behind them. Otherwise the intruder's browser,
 * still signed in at the provider, would get straight back in through the hosted login.
 */
import { expect, it } from "vitest";
import { callback, cookieHeader, cookiesFrom, idp, ORIGIN, providerCode, send, startLogin } from "./helpers/world";

const ADA = "user_01ADALOVELACE0000000000000";
const ACME = "org_01ACME00000000000000000000";

async function providerSessions(): Promise<Map<string, string>> {
  const res = await fetch(`${idp.url}/__local/sessions?user_id=${ADA}`);
  const { data } = (await res.json()) as { data: { id: string; status: string }[] };
  return new Map(data.map((s) => [s.id, s.status]));
}

async function signIn(): Promise<Record<string, string>> {
  const { jar, authorize } = await startLogin(`organization_id=${ACME}`);
  const code = ((await (await providerCode(authorize, ADA, ACME)).json()) as { code: string }).code;
  const res = await callback(authorize, code, jar);
  expect(res.status).toBe(302);
  return jar;
}

it("revoke-all ends every session of the person at the identity provider too, the intruder's included", async () => {
  const before = await providerSessions();
  const mine = await signIn();
  await signIn(); // the intruder's browser
  const ours = [...(await providerSessions()).entries()].filter(([id]) => !before.has(id));
  expect(ours.map(([, status]) => status)).toEqual(["active", "active"]);

  const list = await send("/account/sessions", { headers: { Cookie: cookieHeader(mine), Accept: "application/json" } });
  cookiesFrom(list, mine);
  const res = await send("/account/sessions/revoke-all", {
    method: "POST",
    headers: {
      Cookie: cookieHeader(mine),
      "X-CSRF-Token": mine["__Host-gh_csrf"]!,
      Origin: ORIGIN,
      Accept: "application/json",
    },
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ signedOut: true });

  const after = await providerSessions();
  for (const [id] of ours) expect(after.get(id), id).not.toBe("active");
});
