/**
 * The header and body checks of issue 14 finding 4, shared by the auth worker's route walk
 * (test/security/headers.test.ts) and the consumer's (test/security/consumer/headers.test.ts):
 * what every answer must carry, and what no body may contain (stack traces, file paths).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";

/** Referrer policies that never send a path or query to another origin. */
const REFERRER_POLICIES = new Set(["strict-origin-when-cross-origin", "no-referrer", "same-origin"]);

/** Traces of internals: stack frames, source paths, the repository's location, a thrown error's stack. */
const LEAKS: readonly [string, RegExp][] = [
  ["stack frame", /\bat .*\(.*:\d+:\d+\)/],
  ["bare stack frame", /^\s*at \S+:\d+:\d+\s*$/m],
  ["source file", /\.ts\b|\.m?js:\d+/],
  ["file path", /node_modules|\/work\/|file:\/\//],
  ["error with stack", /Error:[^\n]*\n\s+at /],
];

/** A request as the walk sends it, and a name for the report. */
export interface Probe {
  label: string;
  request: Request;
}

/**
 * Everything wrong with one answer (empty when it passes). Reads the body, so call it once per
 * response. A 101 upgrade is only checked to be an upgrade: its headers are the socket's.
 */
export async function headerProblems(probe: Probe, res: Response): Promise<string[]> {
  const problems: string[] = [];
  const where = `${probe.label} (${probe.request.method} ${new URL(probe.request.url).pathname} → ${res.status})`;
  const fail = (what: string) => problems.push(`${where}: ${what}`);
  if (res.status === 101) {
    if (!res.webSocket) fail("101 without a WebSocket");
    return problems;
  }
  const h = res.headers;
  if (h.get("X-Content-Type-Options") !== "nosniff")
    fail(`X-Content-Type-Options is ${h.get("X-Content-Type-Options")}`);
  if (!REFERRER_POLICIES.has(h.get("Referrer-Policy") ?? "")) fail(`Referrer-Policy is ${h.get("Referrer-Policy")}`);
  if (h.get("X-Frame-Options") !== "DENY") fail(`X-Frame-Options is ${h.get("X-Frame-Options")}`);
  const csp = h.get("Content-Security-Policy");
  const type = h.get("Content-Type") ?? "";
  if (/text\/html/i.test(type) && csp === null) fail("HTML without a Content-Security-Policy");
  if (csp !== null && !/(?:^|;)\s*frame-ancestors 'none'\s*(?:;|$)/.test(csp)) fail(`CSP allows framing: ${csp}`);
  if (csp !== null && /script-src[^;]*'unsafe-inline'/.test(csp)) fail(`CSP allows inline script: ${csp}`);
  const hsts = h.get("Strict-Transport-Security");
  if (probe.request.url.startsWith("https:")) {
    if (!hsts || !/max-age=[1-9]\d*/.test(hsts)) fail(`https answer with Strict-Transport-Security ${hsts}`);
  } else if (hsts !== null) {
    fail(`http answer with Strict-Transport-Security ${hsts}`);
  }
  if (h.get("Cross-Origin-Resource-Policy") === "same-origin" && /javascript|css/i.test(type)) {
    fail("a script or style other origins load is marked same-origin");
  }
  const body = await res.text();
  for (const [name, pattern] of LEAKS) {
    const match = pattern.exec(body);
    if (match) fail(`body leaks a ${name}: ${JSON.stringify(match[0].slice(0, 120))}`);
  }
  return problems;
}

/** Accept and Sec-Fetch headers of a browser navigation from this site, or of an API client. */
export const BROWSER = {
  Accept: "text/html,application/xhtml+xml",
  "Sec-Fetch-Mode": "navigate",
  "Sec-Fetch-Site": "same-origin",
};
export const API = { Accept: "application/json" };

/** What a walk sends: a method, headers and a body, like `RequestInit` but plain. */
export interface WalkInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One walk over one origin: sends each probe through a worker's fetch handler (in its own
 * execution context), counts the statuses met and keeps every header or leak problem.
 * `target` picks the environment per probe (a failing binding, a misconfigured worker, …).
 */
export class HeaderWalk<T> {
  readonly problems: string[] = [];
  readonly statuses = new Set<number>();
  count = 0;

  constructor(
    readonly origin: string,
    readonly defaultTarget: T,
    private readonly fetchWith: (request: Request, target: T, ctx: ExecutionContext) => Response | Promise<Response>,
    private readonly baseHeaders: () => Record<string, string> = () => ({}),
  ) {}

  async send(label: string, path: string, init: WalkInit = {}, target: T = this.defaultTarget): Promise<Response> {
    const headers = { ...this.baseHeaders(), ...init.headers };
    const request = new Request(`${this.origin}${path}`, { ...init, headers, redirect: "manual" });
    const ctx = createExecutionContext();
    const res = await this.fetchWith(request, target, ctx);
    await waitOnExecutionContext(ctx);
    this.count++;
    this.statuses.add(res.status);
    if (res.webSocket) {
      res.webSocket.accept();
      res.webSocket.close(1000, "done");
    }
    this.problems.push(...(await headerProblems({ label, request }, res)));
    return res;
  }
}
