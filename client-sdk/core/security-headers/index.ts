/**
 * @module
 * `SecurityHeadersMiddleware`: the response headers every Gatehouse worker sends. `nosniff`, a
 * `Referrer-Policy`, framing refused (`X-Frame-Options` and CSP `frame-ancestors`), a CSP on
 * documents, HSTS when the request came over https. Mounted first with `Application.use` it runs
 * around the router, so 404s, errors and the early answers of later middleware (429s, 503s) get
 * them too. It never overwrites a header a route set itself, never touches a 101 WebSocket
 * upgrade, and never reads or buffers a body. (Hono's `secureHeaders` is a router middleware:
 * it would miss what Application middleware answers, and it sends HSTS over http too.)
 */
import { errorResponse, GatehouseError } from "../errors";
import { getRequestValue, type Middleware, type Next, RequestKey, setRequestValue } from "../middleware";

/** Sources a handler added to this request's policy (`allowContentSources`). */
const AddedSources = new RequestKey<Partial<Record<keyof ContentSecurityPolicyDirectives, string[]>>>(
  "gatehouse.cspSources",
);

/** The directives a handler may add sources to: where a page loads things from, nothing else. */
export type ContentSourceDirective = "scriptSrc" | "connectSrc" | "imgSrc" | "styleSrc" | "fontSrc";
const FETCH_DIRECTIVES: ReadonlySet<string> = new Set(["scriptSrc", "connectSrc", "imgSrc", "styleSrc", "fontSrc"]);
/** A host source with a scheme (`https://auth.example.com`, `wss://auth.example.com:8443/path`): no keyword, no wildcard. */
const HOST_SOURCE = /^(https?|wss?):\/\/[a-z0-9.-]+(:\d{1,5})?(\/[^\s;,'*]*)?$/i;

/**
 * Adds sources to the Content-Security-Policy `SecurityHeadersMiddleware` gives this request's
 * document, for what a handler put into that page (e.g. the live channel's script and socket on the
 * auth worker's origin). Only the fetch directives, only host sources with a scheme (never a
 * keyword such as `'unsafe-inline'`, never `*`): it can let a named origin in, never loosen the
 * policy otherwise. Appended to the directive's sources (`'none'` is replaced); only this
 * request's answer changes. Anything else throws a `SecurityHeadersError` at the call.
 */
export function allowContentSources(
  request: Request,
  sources: Partial<Record<ContentSourceDirective, readonly string[]>>,
): void {
  const added = { ...(getRequestValue(request, AddedSources) ?? {}) };
  for (const [key, values] of Object.entries(sources) as [ContentSourceDirective, readonly string[]][]) {
    if (!FETCH_DIRECTIVES.has(key)) {
      throw new SecurityHeadersError("invalid_option", {
        message: `allowContentSources: ${key} is not a fetch directive`,
      });
    }
    for (const value of values) {
      if (!HOST_SOURCE.test(value)) {
        throw new SecurityHeadersError("invalid_option", {
          message: `allowContentSources: ${JSON.stringify(value)} is not a host source with a scheme`,
        });
      }
    }
    added[key] = [...new Set([...(added[key] ?? []), ...values])];
  }
  setRequestValue(request, AddedSources, added);
}

/** CSP directives by camelCase name (`connectSrc` → `connect-src`). An empty list writes the bare directive. */
export interface ContentSecurityPolicyDirectives {
  defaultSrc?: readonly string[] | false;
  scriptSrc?: readonly string[] | false;
  scriptSrcElem?: readonly string[] | false;
  scriptSrcAttr?: readonly string[] | false;
  styleSrc?: readonly string[] | false;
  styleSrcElem?: readonly string[] | false;
  styleSrcAttr?: readonly string[] | false;
  imgSrc?: readonly string[] | false;
  fontSrc?: readonly string[] | false;
  connectSrc?: readonly string[] | false;
  mediaSrc?: readonly string[] | false;
  objectSrc?: readonly string[] | false;
  frameSrc?: readonly string[] | false;
  childSrc?: readonly string[] | false;
  workerSrc?: readonly string[] | false;
  manifestSrc?: readonly string[] | false;
  formAction?: readonly string[] | false;
  frameAncestors?: readonly string[] | false;
  baseUri?: readonly string[] | false;
  sandbox?: readonly string[] | false;
  reportTo?: readonly string[] | false;
  reportUri?: readonly string[] | false;
  upgradeInsecureRequests?: readonly string[] | false;
}

/**
 * The policy a document gets when its route set none: nothing but this origin's scripts, styles
 * (inline `<style>` too: the small server-rendered pages carry one), images and connections; forms
 * post back here; no framing, no `<base>`. Never inline script.
 */
export const DEFAULT_CONTENT_SECURITY_POLICY: Readonly<ContentSecurityPolicyDirectives> = Object.freeze({
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", "data:"],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
});

export interface StrictTransportSecurityOptions {
  /** Seconds browsers remember to use https only. Default one year (31536000). */
  maxAge?: number;
  /** Also for every subdomain of the host that sent it. Default true. */
  includeSubDomains?: boolean;
  /** Ask to be put on browsers' preload lists (hard to undo). Default false. */
  preload?: boolean;
}

export type ReferrerPolicy =
  | "no-referrer"
  | "no-referrer-when-downgrade"
  | "origin"
  | "origin-when-cross-origin"
  | "same-origin"
  | "strict-origin"
  | "strict-origin-when-cross-origin"
  | "unsafe-url";

export interface SecurityHeadersOptions {
  /**
   * Directives merged over `DEFAULT_CONTENT_SECURITY_POLICY`, one directive at a time: a list
   * replaces that directive's sources, `false` drops it. `false` here sends no CSP at all. The
   * policy goes on documents (HTML, XHTML, SVG, or no Content-Type) that carry no CSP of their own.
   */
  contentSecurityPolicy?: ContentSecurityPolicyDirectives | false;
  /** Sent only when the request URL is https. `false`: never. */
  strictTransportSecurity?: StrictTransportSecurityOptions | false;
  /**
   * Default `strict-origin-when-cross-origin`: other sites see only our origin, never a path or
   * query; same-origin requests keep the full referrer. `no-referrer` would also blank the
   * `Origin` of our own form POSTs (Fetch spec), which the CSRF and logout checks read.
   */
  referrerPolicy?: ReferrerPolicy | false;
  /** Default `DENY`. */
  xFrameOptions?: "DENY" | "SAMEORIGIN" | false;
  /** `X-Content-Type-Options: nosniff`. Default true. */
  xContentTypeOptions?: boolean;
  /**
   * Default not sent: scripts and assets this worker serves may be loaded by other origins (the
   * live script on consuming apps). Set `same-origin` only for a worker nothing else embeds.
   */
  crossOriginResourcePolicy?: "same-origin" | "same-site" | "cross-origin" | false;
  /** On documents. Default `same-origin`: no cross-origin window keeps a handle on our pages. */
  crossOriginOpenerPolicy?: "same-origin" | "same-origin-allow-popups" | "unsafe-none" | false;
}

export type SecurityHeadersErrorCode = "invalid_option";

/** A host passed an option that would write a malformed or injectable header. */
export class SecurityHeadersError extends GatehouseError<SecurityHeadersErrorCode> {
  override name = "SecurityHeadersError";
}

type HeaderPair = readonly [name: string, value: string];

/** Documents a browser renders (and so the ones a CSP protects); a missing type is sniffed, so it counts too. */
const DOCUMENT_TYPE = /^\s*(?:text\/html|application\/xhtml\+xml|image\/svg\+xml)/i;
/** A source or directive value: no separators (`;`, `,`) and nothing that could end the header. */
const SAFE_VALUE = /^[^\s;,]+$/;

/**
 * @example
 * ```ts
 * const app = Application.create(env, {
 *   // First, so every answer (404s, errors, 429s of later middleware) gets the headers.
 *   middleware: [new SecurityHeadersMiddleware({ contentSecurityPolicy: { connectSrc: ["'self'", "wss://auth.example.com"] } })],
 * });
 * ```
 */
export class SecurityHeadersMiddleware implements Middleware {
  /** Every answer. */
  readonly #always: readonly HeaderPair[];
  /** Every answer to an https request. */
  readonly #https: readonly HeaderPair[];
  /** Documents (see `contentSecurityPolicy`). */
  readonly #documents: readonly HeaderPair[];
  /** The directives of the policy, for a request that added sources; null: no CSP sent. */
  readonly #directives: ContentSecurityPolicyDirectives | null;

  constructor(options: SecurityHeadersOptions = {}) {
    const always: HeaderPair[] = [];
    if (options.xContentTypeOptions !== false) always.push(["X-Content-Type-Options", "nosniff"]);
    const referrer = options.referrerPolicy ?? "strict-origin-when-cross-origin";
    if (referrer) always.push(["Referrer-Policy", checked(referrer)]);
    const frame = options.xFrameOptions ?? "DENY";
    if (frame) always.push(["X-Frame-Options", checked(frame)]);
    if (options.crossOriginResourcePolicy) {
      always.push(["Cross-Origin-Resource-Policy", checked(options.crossOriginResourcePolicy)]);
    }
    this.#always = always;
    this.#https = options.strictTransportSecurity === false ? [] : [hsts(options.strictTransportSecurity ?? {})];
    const documents: HeaderPair[] = [];
    this.#directives =
      options.contentSecurityPolicy === false
        ? null
        : { ...DEFAULT_CONTENT_SECURITY_POLICY, ...(options.contentSecurityPolicy ?? {}) };
    if (this.#directives) documents.push(["Content-Security-Policy", policy(this.#directives)]);
    const opener = options.crossOriginOpenerPolicy ?? "same-origin";
    if (opener) documents.push(["Cross-Origin-Opener-Policy", checked(opener)]);
    this.#documents = documents;
  }

  async handle(request: Request, next: Next): Promise<Response> {
    let response: Response;
    try {
      response = await next();
    } catch (err) {
      // What a later middleware throws would otherwise reach the Application's catch, past us.
      response = errorResponse(err);
    }
    return this.applyTo(request, response);
  }

  /**
   * Returns `response` with the headers set where it has none of its own. A response with
   * immutable headers (from `fetch` or a service binding) is copied first; a 101 is returned as is.
   * For answers built outside the middleware chain (a fail-closed check in front of the app).
   */
  applyTo(request: Request, response: Response): Response {
    if (response.status === 101) return response;
    const https = request.url.startsWith("https:");
    const type = response.headers.get("Content-Type");
    const document = type === null || DOCUMENT_TYPE.test(type);
    const documents = document ? this.#documentHeaders(request) : [];
    try {
      this.#set(response.headers, https, documents);
      return response;
    } catch {
      const copy = new Response(response.body, response);
      this.#set(copy.headers, https, documents);
      return copy;
    }
  }

  /** The document headers, with the sources a handler added for this request (if any). */
  #documentHeaders(request: Request): readonly HeaderPair[] {
    const added = getRequestValue(request, AddedSources);
    if (!added || !this.#directives) return this.#documents;
    const directives: ContentSecurityPolicyDirectives = { ...this.#directives };
    for (const [key, sources] of Object.entries(added) as [keyof ContentSecurityPolicyDirectives, string[]][]) {
      const base = directives[key] || [];
      directives[key] = [...new Set([...base.filter((s) => s !== "'none'"), ...sources])];
    }
    return this.#documents.map(([name, value]) =>
      name === "Content-Security-Policy" ? [name, policy(directives)] : [name, value],
    );
  }

  #set(headers: Headers, https: boolean, documents: readonly HeaderPair[]): void {
    setAbsent(headers, this.#always);
    if (https) setAbsent(headers, this.#https);
    setAbsent(headers, documents);
  }
}

function setAbsent(headers: Headers, pairs: readonly HeaderPair[]): void {
  for (const [name, value] of pairs) {
    if (!headers.has(name)) headers.set(name, value);
  }
}

function hsts(options: StrictTransportSecurityOptions): HeaderPair {
  const maxAge = options.maxAge ?? 31_536_000;
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new SecurityHeadersError("invalid_option", {
      message: "strictTransportSecurity.maxAge must be seconds >= 0",
    });
  }
  let value = `max-age=${maxAge}`;
  if (options.includeSubDomains !== false) value += "; includeSubDomains";
  if (options.preload) value += "; preload";
  return ["Strict-Transport-Security", value];
}

function policy(overrides: ContentSecurityPolicyDirectives): string {
  const merged: ContentSecurityPolicyDirectives = { ...DEFAULT_CONTENT_SECURITY_POLICY, ...overrides };
  const parts: string[] = [];
  for (const [key, sources] of Object.entries(merged) as [string, readonly string[] | false | undefined][]) {
    if (!sources) continue;
    if (!/^[a-z][a-zA-Z]*$/.test(key)) {
      throw new SecurityHeadersError("invalid_option", { message: `unknown CSP directive ${JSON.stringify(key)}` });
    }
    const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    parts.push([name, ...sources.map(checked)].join(" "));
  }
  return parts.join("; ");
}

function checked(value: string): string {
  if (!SAFE_VALUE.test(value)) {
    throw new SecurityHeadersError("invalid_option", {
      message: `security header value ${JSON.stringify(value)} is empty or contains a space, ";" or ","`,
    });
  }
  return value;
}
