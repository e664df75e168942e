/**
 * @module
 * Break-glass console sessions: an operator who cannot sign in through the identity provider
 * (the provider is down, or nobody holds an admin role) types an admin token into the console's
 * form and gets a console session of at most `BREAK_GLASS_SECONDS`. The cookie holds a random
 * secret; KV holds only its SHA-256 (`console:bg:<hash>` → the token's label and the end), so a
 * KV read never yields a usable cookie. The end is checked on every request, whatever the cookie
 * or KV say; closing deletes the record and clears the cookie. The console's CSRF tokens are bound
 * to the open session (`csrfBinding`), so the anonymous token of the token form stops working there.
 */
import { buildSetCookie, parseCookie } from "../../cookies";
import { randomToken, sha256Hex } from "../../crypto";

/** A break-glass console session lasts at most this long (15 minutes). */
export const BREAK_GLASS_SECONDS = 15 * 60;
const PREFIX = "console:bg:";

export interface BreakGlassSession {
  /** The label of the admin token that opened it (never the token). */
  label: string;
  openedAt: number;
  expiresAt: number;
}

function isBreakGlass(value: unknown): value is BreakGlassSession {
  const v = value as BreakGlassSession;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof v.label === "string" &&
    typeof v.openedAt === "number" &&
    typeof v.expiresAt === "number"
  );
}

export class BreakGlassSessions {
  readonly #kv: KVNamespace;
  readonly #clock: () => number;
  readonly #secure: boolean;
  readonly #lookups = new WeakMap<Request, Promise<{ hash: string; session: BreakGlassSession } | null>>();

  constructor(kv: KVNamespace, options: { clock: () => number; secure: boolean }) {
    this.#kv = kv;
    this.#clock = options.clock;
    this.#secure = options.secure;
  }

  /** `__Secure-` over https; the cookie is sent to the console's paths only. */
  get cookieName(): string {
    return `${this.#secure ? "__Secure-" : ""}gh_console`;
  }

  /** Opens a session for the token's label; returns it and the Set-Cookie header value. */
  async open(label: string): Promise<{ session: BreakGlassSession; setCookie: string }> {
    const secret = randomToken(32);
    const now = this.#clock();
    const session: BreakGlassSession = { label, openedAt: now, expiresAt: now + BREAK_GLASS_SECONDS * 1000 };
    await this.#kv.put(`${PREFIX}${await sha256Hex(secret)}`, JSON.stringify(session), {
      expirationTtl: BREAK_GLASS_SECONDS,
    });
    return { session, setCookie: this.#cookie(secret, BREAK_GLASS_SECONDS) };
  }

  /** The open session of this request, or null (no cookie, unknown, or past its end). */
  async current(request: Request): Promise<BreakGlassSession | null> {
    return (await this.#open(request))?.session ?? null;
  }

  /**
   * What the console's CSRF tokens of this request are bound to: `console:bg:<hash>` while a
   * session is open (never a session id: those are bare hex), else null (the person's session).
   */
  async csrfBinding(request: Request): Promise<string | null> {
    const open = await this.#open(request);
    return open ? `${PREFIX}${open.hash}` : null;
  }

  /** Ends this request's session (if any); returns the Set-Cookie header value that clears the cookie. */
  async close(request: Request): Promise<string> {
    const secret = this.#secretOf(request);
    this.#lookups.delete(request);
    if (secret) await this.#kv.delete(`${PREFIX}${await sha256Hex(secret)}`);
    return this.#cookie("", 0);
  }

  /** The request's open session and its hash, read from KV once per request (CSRF, then access). */
  #open(request: Request): Promise<{ hash: string; session: BreakGlassSession } | null> {
    let lookup = this.#lookups.get(request);
    if (!lookup) {
      lookup = this.#read(request);
      this.#lookups.set(request, lookup);
    }
    return lookup.then((found) => (found && found.session.expiresAt > this.#clock() ? found : null));
  }

  async #read(request: Request): Promise<{ hash: string; session: BreakGlassSession } | null> {
    const secret = this.#secretOf(request);
    if (!secret) return null;
    const hash = await sha256Hex(secret);
    const session = await this.#kv.get(`${PREFIX}${hash}`, "json");
    return isBreakGlass(session) ? { hash, session } : null;
  }

  #secretOf(request: Request): string | null {
    const value = parseCookie(request.headers.get("Cookie") ?? "")[this.cookieName];
    return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
  }

  #cookie(value: string, maxAge: number): string {
    return buildSetCookie(this.cookieName, value, {
      path: "/admin",
      maxAge,
      httpOnly: true,
      secure: this.#secure,
      sameSite: "Strict",
    });
  }
}
