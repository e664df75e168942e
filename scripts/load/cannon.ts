/**
 * The two loads of `npm run load`, each a fixed number of requests with
 * autocannon (never open-ended): authenticated GETs of the auth worker's
 * `/api/me`, and many requests on one rate-limited key. It only counts and
 * summarises; it never decides whether a figure is good.
 */
import autocannon, { type Result } from "autocannon";

export interface AuthLoad {
  requests: number;
  /** Non-2xx answers plus socket errors and timeouts. */
  errors: number;
  non2xx: number;
  socketErrors: number;
  p50: number;
  p99: number;
  seconds: number;
  statuses: Record<string, number>;
}

export interface LimitLoad {
  requests: number;
  /** 2xx answers: requests the limiter admitted. */
  admitted: number;
  /** 429 answers. */
  limited: number;
  /** Anything else, plus socket errors and timeouts. */
  errors: number;
  seconds: number;
  statuses: Record<string, number>;
}

function statuses(result: Result): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
}

/** `amount` GETs of `url` with `cookie`, `connections` at a time. */
async function fire(url: string, cookie: string, amount: number, connections: number): Promise<Result> {
  return autocannon({
    url,
    headers: { Cookie: cookie, Accept: "application/json" },
    connections,
    amount,
    timeout: 10,
  });
}

export async function authLoad(url: string, cookie: string, amount: number, connections: number): Promise<AuthLoad> {
  const r = await fire(url, cookie, amount, connections);
  return {
    requests: amount,
    errors: r.non2xx + r.errors,
    non2xx: r.non2xx,
    socketErrors: r.errors,
    p50: r.latency.p50,
    p99: r.latency.p99,
    seconds: r.duration,
    statuses: statuses(r),
  };
}

export async function limitLoad(url: string, cookie: string, amount: number, connections: number): Promise<LimitLoad> {
  const r = await fire(url, cookie, amount, connections);
  const counts = statuses(r);
  let admitted = 0;
  let limited = 0;
  for (const [code, count] of Object.entries(counts)) {
    if (code.startsWith("2")) admitted += count;
    else if (code === "429") limited += count;
  }
  return {
    requests: amount,
    admitted,
    limited,
    errors: r.errors + (r.non2xx - limited),
    seconds: r.duration,
    statuses: counts,
  };
}
