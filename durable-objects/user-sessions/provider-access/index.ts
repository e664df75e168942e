/**
 * @module
 * Provider access: what an active session may obtain beyond itself, on its user's behalf: the
 * identity provider's access token, refreshed one at a time (`provider-tokens.ts`), and a live
 * ticket that lets a page of a consuming app join the session's live channel (`tickets.ts`).
 * Nothing is handed out for a session that is not active here; tokens never leave through KV.
 */
import { objectNow } from "../../clock";
import type { SessionObject } from "../context";
import type { Admission } from "../live";
import { type AccessTokenAnswer, ProviderTokens, type TokenRefresher } from "./provider-tokens";
import { consumeTicket, mintTicket, TICKET_TTL_MS } from "./tickets";

export {
  ACCESS_TOKEN_SKEW_MS,
  type AccessTokenAnswer,
  type RefreshTokens,
  type TokenRefresher,
} from "./provider-tokens";
export { TICKET_TTL_MS } from "./tickets";

export interface ProviderAccessParts {
  /** The refresher of the script's objects (`UserSessions.refreshTokens`), read when a refresh starts. */
  refresher(): TokenRefresher | null;
  env: Readonly<Record<string, unknown>>;
}

/** Also what the live channel admits an upgrade with (live.ts): a session active here, or a ticket spent now. */
export class ProviderAccess implements Admission {
  readonly #object: SessionObject;
  readonly #tokens: ProviderTokens;

  constructor(object: SessionObject, parts: ProviderAccessParts) {
    this.#object = object;
    this.#tokens = new ProviderTokens(object.sql, parts.refresher, parts.env);
  }

  /** The provider's access token for an active session: the cached one while fresh, else one refresh at a time. */
  async accessToken(sessionId: string): Promise<AccessTokenAnswer> {
    if (!this.#object.own.isActive(sessionId)) return { ok: false, reason: "session_inactive" };
    return this.#tokens.accessToken(sessionId, objectNow());
  }

  /** A live ticket's nonce for an active session, valid for `TICKET_TTL_MS`; null when it is not active here. */
  async mintTicket(sessionId: string): Promise<{ ticket: string; expiresAt: number } | null> {
    const now = objectNow();
    if (!this.#object.own.isActive(sessionId, now)) return null;
    return { ticket: await mintTicket(this.#object.sql, sessionId, now), expiresAt: now + TICKET_TTL_MS };
  }

  isActive(sessionId: string, now: number): boolean {
    return this.#object.own.isActive(sessionId, now);
  }

  /** The session a ticket was minted for, spent now whatever the answer; null when unknown or expired. */
  spendTicket(nonce: string, now: number): Promise<string | null> {
    return consumeTicket(this.#object.sql, nonce, now);
  }
}
