/**
 * The mixed workload of the load test: simulated people, each with a client address in a /64 of
 * their own, go through what a person does, `concurrency` of them at a time (so at most that many
 * requests are in flight, each person waiting for one answer before the next request). Each person
 * sends `STEPS_PER_PERSON` requests to the workers:
 *   sign-in   GET /auth/login → (local provider) → GET /auth/callback          2  (302, 302)
 *   page      GET /account/sessions as a browser (AuthMiddleware + CSRF token) 3  (200)
 *   resolve   GET /api/me on the auth worker                                   8  (200)
 *   quota     GET /api/quota on the example consumer (100 per user and 10 min) 5  (200, or 429)
 *   revoke    POST /auth/logout with the CSRF token                            1  (302)
 *   resolve   GET /api/me with the signed-out cookie                           1  (401)
 * An error is any other status, a network error or a timeout. The 429s of the quota are answers:
 * the people share four demo users, so each user's quota runs out during the run.
 * It only counts and summarises; it never decides whether a figure is good.
 */
import { ACME_ID, ADA_ID, ALAN_ID, GRACE_ID, MARGARET_ID } from "../local-idp/index.ts";
import { type Leg, Person, type Sample } from "./client.ts";

/** The demo users the people sign in as (Grace belongs to two organizations: she picks Acme). */
export const LOAD_USERS: readonly { id: string; organizationId: string | null }[] = [
  { id: ADA_ID, organizationId: null },
  { id: ALAN_ID, organizationId: null },
  { id: GRACE_ID, organizationId: ACME_ID },
  { id: MARGARET_ID, organizationId: null },
];

/** Between the first page and the sign-out: r resolve, q quota, p page (8 + 5 + 2). */
const VISITS = "rqrprqrrqprqrqr";
export const STEPS_PER_PERSON = 2 + 1 + VISITS.length + 2;
export const LEGS: readonly Leg[] = ["signin", "resolve", "page", "revoke", "quota"];

export interface MixedOptions {
  authUrl: string;
  consumerUrl: string;
  idpUrl: string;
  /** Requests to send in all (a multiple of STEPS_PER_PERSON). */
  requests: number;
  concurrency: number;
  /** Index of the first person's address (others use the indexes below it). */
  firstPerson: number;
}

export interface LegSummary {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

export interface MixedResult {
  people: number;
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p99: number;
  legs: Record<Leg, LegSummary>;
  /** 200s of /api/quota by user id. */
  quotaAdmitted: Record<string, number>;
  /** Fixed quota windows (600 s, epoch-aligned) the quota requests fell in. */
  quotaWindows: number;
  /** The first few unexpected answers, for the log. */
  errorDetails: string[];
  /** A person after sign-out, with the cookie their session had (for the restart checks). */
  signedOut: { cookie: string; address: string } | null;
}

/** The value below which a fraction `q` of the sorted `values` fall (nearest rank). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

export async function runMixed(options: MixedOptions, quotaWindowSeconds: number): Promise<MixedResult> {
  const { authUrl, consumerUrl, idpUrl } = options;
  const people = Math.floor(options.requests / STEPS_PER_PERSON);
  const samples: Sample[] = [];
  const errorDetails: string[] = [];
  let providerErrors = 0;
  const quotaAdmitted: Record<string, number> = {};
  const windows = new Set<number>();
  let signedOut: MixedResult["signedOut"] = null;
  const sink = (s: Sample) => {
    samples.push(s);
    if (!s.expected && errorDetails.length < 10) errorDetails.push(`${s.leg} ${s.status}: ${s.detail ?? ""}`);
  };
  const json = { Accept: "application/json" };
  const html = { Accept: "text/html" };

  async function live(index: number): Promise<void> {
    const person = new Person(options.firstPerson + index, sink);
    const user = LOAD_USERS[index % LOAD_USERS.length]!;
    const signedIn = await person.signIn(authUrl, idpUrl, user.id, user.organizationId, (detail) => {
      providerErrors++;
      if (errorDetails.length < 10) errorDetails.push(`signin provider: ${detail}`);
    });
    if (!signedIn) return; // recorded; the rest of this person's visits would only repeat the error
    await person.send("page", `${authUrl}/account/sessions`, [200], { headers: html });
    for (const visit of VISITS) {
      if (visit === "r") await person.send("resolve", `${authUrl}/api/me`, [200], { headers: json });
      else if (visit === "p") await person.send("page", `${authUrl}/account/sessions`, [200], { headers: html });
      else {
        windows.add(Math.floor(Date.now() / 1000 / quotaWindowSeconds));
        const answer = await person.send("quota", `${consumerUrl}/api/quota`, [200, 429], { headers: json });
        if (answer?.status === 200) quotaAdmitted[user.id] = (quotaAdmitted[user.id] ?? 0) + 1;
      }
    }
    const session = person.cookie;
    const csrfName = [...session.matchAll(/(?:^|; )([^=;]*gh_csrf)=/g)][0]?.[1];
    const csrf = csrfName ? (person.cookieValue(csrfName) ?? "") : "";
    await person.send("revoke", `${authUrl}/auth/logout`, [302], {
      method: "POST",
      headers: { ...json, "X-CSRF-Token": csrf },
    });
    await person.send("resolve", `${authUrl}/api/me`, [401], { headers: json, cookie: session });
    signedOut ??= { cookie: session, address: person.address };
  }

  let next = 0;
  const worker = async () => {
    while (next < people) await live(next++);
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(options.concurrency, people) }, worker));
  const seconds = (performance.now() - start) / 1000;

  const summarise = (list: Sample[]): LegSummary => {
    const sorted = list.map((s) => s.ms).sort((a, b) => a - b);
    const statuses: Record<string, number> = {};
    for (const s of list) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    return {
      requests: list.length,
      errors: list.filter((s) => !s.expected).length,
      p50: round1(percentile(sorted, 0.5)),
      p99: round1(percentile(sorted, 0.99)),
      statuses,
    };
  };
  const legs = Object.fromEntries(LEGS.map((leg) => [leg, summarise(samples.filter((s) => s.leg === leg))])) as Record<
    Leg,
    LegSummary
  >;
  const all = summarise(samples);
  return {
    people,
    requests: all.requests,
    // A sign-in the provider could not finish is an error of the run too (the person stopped there).
    errors: all.errors + providerErrors,
    seconds,
    p50: all.p50,
    p99: all.p99,
    legs,
    quotaAdmitted,
    quotaWindows: windows.size,
    errorDetails,
    signedOut,
  };
}
