/**
 * @module
 * The cost bench's device-binding operations (issue 30). Device binding is off in the template, so
 * they run on `BoundAuthWorker` and `EventualBoundAuthWorker` (worker.ts: the auth routes and
 * `/api/me` with `deviceBinding: "opportunistic"`): a refresh as Chrome makes it (the POST without a
 * proof, 403 and a challenge; the POST with the signed proof, 200 and a new bound cookie), and a
 * guarded request of a bound session in each mode. The browser is the DBSC reference client
 * (test/sessions/dbsc-client.ts). Setup (the session, its registration challenge) goes through the
 * raw bindings and the registration through its route, never measured. Each checks what it is named for.
 */
import { DbscClient, refreshRequestHeaders, registrationRequestHeaders } from "../../test/sessions/dbsc-client";
import { BROWSER, entry, expectStatus, id, measure, ORIGIN, openSessions, person, userObject } from "./operations";
import type { Results } from "./person-scenarios";

const SESSION_COOKIE = "__Host-gh_session";
const BOUND_COOKIE = "__Host-gh_session_dbsc";

/** A browser holding a bound session: its two cookies and its key. */
interface BoundBrowser {
  sessionId: string;
  session: string;
  bound: string;
  device: DbscClient;
}

const cookies = (b: BoundBrowser) => `${SESSION_COOKIE}=${b.session}; ${BOUND_COOKIE}=${b.bound}`;

/** The bound cookie's value a response sets, or null. */
function boundCookieOf(res: Response): string | null {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${BOUND_COOKIE}=`));
  return line ? line.split(";")[0]!.slice(BOUND_COOKIE.length + 1) : null;
}

/** Setup: a fresh person's session (raw bindings), its registration challenge (raw stub), the key registered through the route. */
async function boundSession(worker: Fetcher, name: string): Promise<BoundBrowser> {
  const user = id(name);
  const opened = await openSessions(person(user), 1);
  const sessionId = opened.ids[0]!;
  const session = opened.cookies[0]!.slice(SESSION_COOKIE.length + 1);
  const issued = await userObject(user).bindingChallenge(sessionId, "registration");
  if (!issued) throw new Error("the object gave no registration challenge");
  const device = await DbscClient.create("ES256");
  const headers = registrationRequestHeaders(await device.registrationProof(issued.challenge), "chrome");
  for (const [name, value] of Object.entries(BROWSER)) headers.set(name, value);
  headers.set("Cookie", `${SESSION_COOKIE}=${session}`);
  const res = await worker.fetch(`${ORIGIN}/auth/dbsc/register`, { method: "POST", headers });
  const bound = boundCookieOf(await expectStatus(res, 200, "the registration"));
  if (!bound) throw new Error("the registration set no bound cookie");
  return { sessionId, session, bound, device };
}

function refreshPost(worker: Fetcher, b: BoundBrowser, proof: string | null): Promise<Response> {
  const headers = refreshRequestHeaders(b.sessionId, proof, "chrome");
  for (const [name, value] of Object.entries(BROWSER)) headers.set(name, value);
  headers.set("Cookie", cookies(b));
  return worker.fetch(`${ORIGIN}/auth/dbsc/refresh`, { method: "POST", headers });
}

/** Chrome's refresh: 403 with a challenge, the proof signed, 200 with a new bound cookie. */
async function refresh(worker: Fetcher, b: BoundBrowser): Promise<void> {
  const asked = await expectStatus(await refreshPost(worker, b, null), 403, "a refresh without a proof");
  const challenge = /^"([^"]+)"/.exec(asked.headers.get("Secure-Session-Challenge") ?? "")?.[1];
  if (!challenge) throw new Error("the refresh's 403 carried no challenge");
  const renewed = await expectStatus(
    await refreshPost(worker, b, await b.device.refreshProof(challenge)),
    200,
    "a refresh with the proof",
  );
  const bound = boundCookieOf(renewed);
  if (!bound || bound === b.bound) throw new Error("the refresh set no new bound cookie");
  b.bound = bound;
}

/** `GET /api/me` as an API client with `cookie`: its status. */
async function apiMe(worker: Fetcher, cookie: string): Promise<number> {
  const res = await worker.fetch(`${ORIGIN}/api/me`, { headers: { Cookie: cookie, Accept: "application/json" } });
  await res.body?.cancel();
  return res.status;
}

async function guardedBound(worker: Fetcher, b: BoundBrowser): Promise<void> {
  const status = await apiMe(worker, cookies(b));
  if (status !== 200) throw new Error(`a bound session's guarded request answered ${status}`);
}

/** Outside the counting: without its bound cookie the session is refused, so it is bound. */
async function expectBound(worker: Fetcher, b: BoundBrowser): Promise<void> {
  const status = await apiMe(worker, `${SESSION_COOKIE}=${b.session}`);
  if (status !== 401) throw new Error(`the session without its bound cookie answered ${status}: it is not bound`);
}

async function repeat(n: number, fn: () => Promise<void>): Promise<void> {
  for (let i = 0; i < n; i++) await fn();
}

/** A refresh (strict, the default), and the guarded requests of a bound session in both modes. */
export async function deviceBinding(results: Results): Promise<void> {
  for (const [mode, worker] of [
    ["strict", entry.BoundAuthWorker],
    ["eventual", entry.EventualBoundAuthWorker],
  ] as const) {
    const browser = await boundSession(worker, `bound_${mode}`);
    await expectBound(worker, browser);
    await guardedBound(worker, browser);
    results.set(
      `guarded_bound_${mode}`,
      await measure(() => repeat(10, () => guardedBound(worker, browser)), { count: 10 }),
    );
    if (mode === "strict") {
      results.set("dbsc_refresh", await measure(() => refresh(worker, browser)));
      await guardedBound(worker, browser);
    }
  }
}
