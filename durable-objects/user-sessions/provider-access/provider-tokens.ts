/**
 * @module
 * The identity provider's tokens of each session, kept in the user's object only (never in KV or a
 * cookie), and one refresh at a time: the provider rotates refresh tokens, so two refreshes with
 * one token log the person out (the complaint of many tabs refreshing at once). Concurrent callers
 * for a session share one in-flight refresh and all get its result. Before the provider is called
 * the row is marked `refresh_pending` (committed before the call leaves: output gate), so an object
 * that dies mid-refresh never sends that token again: the person signs in again instead. A refused
 * token is dropped; a provider that answered 5xx did not spend it, and it is kept.
 */

/** Renews tokens at the identity provider. */
export type RefreshTokens = (request: {
  refreshToken: string;
  organizationId?: string;
}) => Promise<{ accessToken: string; refreshToken: string; accessTokenExpiresAt: number }>;

/**
 * How the objects of a script renew tokens, given their env: set by the auth worker
 * (`UserSessions.refreshTokens`, from its identity client); null when that client cannot refresh.
 */
export type TokenRefresher = (env: Readonly<Record<string, unknown>>) => RefreshTokens | null;

export type AccessTokenAnswer =
  | { ok: true; accessToken: string; expiresAt: number; refreshed: boolean }
  | {
      ok: false;
      /**
       * `session_inactive`: no such live session; `no_refresh_token`: the sign-in gave none;
       * `refresh_unsupported`: the identity client cannot refresh; `reauthentication_required`:
       * the token was refused or may be spent; `provider_unavailable`: try again later.
       */
      reason:
        | "session_inactive"
        | "no_refresh_token"
        | "refresh_unsupported"
        | "reauthentication_required"
        | "provider_unavailable";
    };

/** An access token this close to its expiry is refreshed first. */
export const ACCESS_TOKEN_SKEW_MS = 60_000;

type TokenRow = {
  access_token: string | null;
  access_expires_at: number | null;
  refresh_token: string | null;
  refresh_pending: number | null;
  organization_id: string | null;
};

export class ProviderTokens {
  readonly #inFlight = new Map<string, Promise<AccessTokenAnswer>>();

  constructor(
    readonly sql: SqlStorage,
    readonly refresher: () => TokenRefresher | null,
    readonly env: Readonly<Record<string, unknown>>,
  ) {}

  /** A provider access token for the session, fresh for at least a minute, refreshing once if needed. */
  accessToken(sessionId: string, now: number): Promise<AccessTokenAnswer> {
    const row = this.#row(sessionId);
    if (!row) return Promise.resolve({ ok: false, reason: "session_inactive" });
    if (row.access_token && Number(row.access_expires_at) > now + ACCESS_TOKEN_SKEW_MS) {
      return Promise.resolve({
        ok: true,
        accessToken: row.access_token,
        expiresAt: Number(row.access_expires_at),
        refreshed: false,
      });
    }
    let flight = this.#inFlight.get(sessionId);
    if (!flight) {
      flight = this.#refresh(sessionId, row).finally(() => this.#inFlight.delete(sessionId));
      this.#inFlight.set(sessionId, flight);
    }
    return flight;
  }

  async #refresh(sessionId: string, row: TokenRow): Promise<AccessTokenAnswer> {
    // 1: a refresh was under way when the object last stopped (the provider may have spent the
    // token); 2: the provider refused it. Either way it is never sent again.
    if (row.refresh_pending) return { ok: false, reason: "reauthentication_required" };
    if (!row.refresh_token) return { ok: false, reason: "no_refresh_token" };
    const refresh = this.refresher()?.(this.env) ?? null;
    if (!refresh) return { ok: false, reason: "refresh_unsupported" };
    this.sql.exec("UPDATE sessions SET refresh_pending = 1 WHERE id = ?", sessionId);
    let tokens: Awaited<ReturnType<RefreshTokens>>;
    try {
      tokens = await refresh({
        refreshToken: row.refresh_token,
        ...(row.organization_id ? { organizationId: row.organization_id } : {}),
      });
    } catch (err) {
      if (unspent(err)) {
        this.sql.exec("UPDATE sessions SET refresh_pending = 0 WHERE id = ?", sessionId);
        return { ok: false, reason: "provider_unavailable" };
      }
      // Refused, or no answer at all (it may have been spent): never sent again.
      this.sql.exec(
        "UPDATE sessions SET refresh_token = NULL, access_token = NULL, access_expires_at = NULL, refresh_pending = 2 WHERE id = ?",
        sessionId,
      );
      return { ok: false, reason: "reauthentication_required" };
    }
    const stored = this.sql.exec(
      `UPDATE sessions SET access_token = ?, access_expires_at = ?, refresh_token = ?, refresh_pending = 0
       WHERE id = ?`,
      tokens.accessToken,
      tokens.accessTokenExpiresAt,
      tokens.refreshToken,
      sessionId,
    ).rowsWritten;
    // Revoked while the provider answered: the tokens went with the row.
    if (stored === 0) return { ok: false, reason: "session_inactive" };
    return { ok: true, accessToken: tokens.accessToken, expiresAt: tokens.accessTokenExpiresAt, refreshed: true };
  }

  #row(sessionId: string): TokenRow | undefined {
    return this.sql
      .exec<TokenRow>(
        "SELECT access_token, access_expires_at, refresh_token, refresh_pending, organization_id FROM sessions WHERE id = ?",
        sessionId,
      )
      .toArray()[0];
  }
}

/**
 * The provider answered without taking the token: a server error, our credentials refused (401,
 * 403) or rate limited (429). A timeout, a network failure or a refusal of the token (400) may
 * have spent it.
 */
function unspent(err: unknown): boolean {
  const cause = (err as { cause?: { status?: unknown } } | null)?.cause;
  const status = Number(cause?.status ?? (err as { providerStatus?: unknown } | null)?.providerStatus);
  return Number.isFinite(status) && (status >= 500 || status === 401 || status === 403 || status === 429);
}
