/**
 * The HTTP side of the load test: one simulated person, with a cookie jar and a client address of
 * their own (`CF-Connecting-IP`, an IPv6 address in a /64 nobody else uses). `wrangler dev` keeps a
 * `CF-Connecting-IP` the client sent (miniflare sets it only when it is absent; Cloudflare's edge
 * always overwrites it), so the auth routes' per-address limits count each person on their own.
 * Sign-in is the browser's flow without the provider's page: GET /auth/login, the local provider's
 * `/__local/codes` for that flow's state and PKCE challenge, then /auth/callback with the flow cookie.
 * Every request to a worker is timed and checked against the statuses it may answer. Loopback only.
 */

/** What a request of the mixed workload exercises. */
export type Leg = "signin" | "resolve" | "page" | "revoke" | "quota";

/** One request to a worker: how long it took and whether its status was an expected one. */
export interface Sample {
  leg: Leg;
  ms: number;
  /** The HTTP status, or 0 for a network error or timeout. */
  status: number;
  expected: boolean;
  /** What went wrong, for an unexpected answer. */
  detail?: string;
}

export type Sink = (sample: Sample) => void;

/** The address of person `index`: `2001:db8:<hi>:<lo>::1`, one /64 per person (documentation prefix). */
export function personAddress(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > 0xffff_ffff) throw new RangeError("person index out of range");
  return `2001:db8:${(index >>> 16).toString(16)}:${(index & 0xffff).toString(16)}::1`;
}

/** A request's answer, body read (the socket is free again). */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const REQUEST_TIMEOUT_MS = 15_000;

export class Person {
  readonly #jar = new Map<string, string>();
  readonly #sink: Sink;
  readonly address: string;
  userId: string | null = null;

  constructor(index: number, sink: Sink) {
    this.address = personAddress(index);
    this.#sink = sink;
  }

  /** The `Cookie` header this person's browser would send. */
  get cookie(): string {
    return [...this.#jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  cookieValue(name: string): string | undefined {
    return this.#jar.get(name);
  }

  /**
   * One request to a worker, timed and recorded: `expect` lists the statuses that are answers,
   * not errors. `init.cookie` replaces the jar's cookies (a session the jar has already dropped).
   * Returns the answer, or null after a network error.
   */
  async send(
    leg: Leg,
    url: string,
    expect: readonly number[],
    init: { method?: string; headers?: Record<string, string>; body?: string; cookie?: string } = {},
  ): Promise<Answer | null> {
    const headers: Record<string, string> = { "CF-Connecting-IP": this.address, ...init.headers };
    const cookie = init.cookie ?? this.cookie;
    if (cookie) headers.Cookie = cookie;
    const start = performance.now();
    try {
      const res = await fetch(url, {
        method: init.method ?? "GET",
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        redirect: "manual",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      const ms = performance.now() - start;
      this.#keepCookies(res);
      const expected = expect.includes(res.status);
      this.#sink({
        leg,
        ms,
        status: res.status,
        expected,
        ...(expected ? {} : { detail: `${init.method ?? "GET"} ${new URL(url).pathname}: ${text.slice(0, 200)}` }),
      });
      return { status: res.status, headers: res.headers, text };
    } catch (err) {
      const detail = `${init.method ?? "GET"} ${new URL(url).pathname}: ${err instanceof Error ? err.message : err}`;
      this.#sink({ leg, ms: performance.now() - start, status: 0, expected: false, detail });
      return null;
    }
  }

  /**
   * Signs `userId` in on the auth worker at `authUrl` through the local provider at `idpUrl`: two
   * requests to the worker (login, callback); the provider's code is not counted. False when a
   * step failed (already recorded, or reported through `onProviderError`).
   */
  async signIn(
    authUrl: string,
    idpUrl: string,
    userId: string,
    organizationId: string | null,
    onProviderError: (detail: string) => void,
  ): Promise<boolean> {
    const start = await this.send("signin", `${authUrl}/auth/login?return_to=%2Faccount%2Fsessions`, [302]);
    const location = start?.status === 302 ? start.headers.get("Location") : null;
    if (!location) return false;
    const authorize = new URL(location);
    const state = authorize.searchParams.get("state") ?? "";
    let code: string;
    try {
      const issued = await fetch(`${idpUrl}/__local/codes`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          user_id: userId,
          ...(organizationId ? { organization_id: organizationId } : {}),
          state,
          code_challenge: authorize.searchParams.get("code_challenge"),
          redirect_uri: authorize.searchParams.get("redirect_uri"),
        }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = await issued.text();
      if (issued.status !== 201) throw new Error(`/__local/codes answered ${issued.status}: ${body.slice(0, 200)}`);
      code = (JSON.parse(body) as { code: string }).code;
    } catch (err) {
      onProviderError(err instanceof Error ? err.message : String(err));
      return false;
    }
    const query = `code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`;
    const callback = await this.send("signin", `${authUrl}/auth/callback?${query}`, [302]);
    if (callback?.status !== 302) return false;
    this.userId = userId;
    return true;
  }

  /** Signs in as `signIn` does, outside the measured workload; throws when it fails. */
  static async signedIn(
    index: number,
    authUrl: string,
    idpUrl: string,
    userId: string,
    organizationId: string | null = null,
  ): Promise<Person> {
    const failures: string[] = [];
    const person = new Person(index, (s) => {
      if (!s.expected) failures.push(`${s.status} ${s.detail ?? ""}`);
    });
    const ok = await person.signIn(authUrl, idpUrl, userId, organizationId, (d) => failures.push(d));
    if (!ok) throw new Error(`sign-in of ${userId} failed: ${failures.join("; ")}`);
    return person;
  }

  #keepCookies(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      if (/Max-Age=0/i.test(line)) this.#jar.delete(name);
      else this.#jar.set(name, pair.slice(eq + 1));
    }
  }
}

/** GET with this process's own client (not recorded): the status, for checks outside the workload. */
export async function statusOf(url: string, cookie: string, address: string): Promise<number> {
  const res = await fetch(url, {
    headers: { Cookie: cookie, Accept: "application/json", "CF-Connecting-IP": address },
    redirect: "manual",
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  await res.arrayBuffer();
  return res.status;
}
