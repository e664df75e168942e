/**
 * @module
 * Feature contract — provider access: what a session may obtain beyond itself, on its user's
 * behalf: the provider's access token, and a single-use ticket that lets a page of a consuming app
 * join the session's live channel. Types only.
 */

/**
 * What a page of a consuming app needs to join its session's live channel: the ticket (sent as the
 * socket's first message, never in a URL; single-use, valid until `expiresAt`), the channel's
 * WebSocket URL, the script that holds it, and where a signed-out tab goes.
 */
export interface LiveTicket {
  ticket: string;
  userId: string;
  /** ms since the epoch. */
  expiresAt: number;
  channelUrl: string;
  scriptUrl: string;
  signedOutUrl: string;
}

/** A provider access token for a session, or why there is none (`reauthentication_required`: sign in again). */
export type AccessTokenResult =
  | { ok: true; accessToken: string; expiresAt: number }
  | {
      ok: false;
      reason:
        | "unauthenticated"
        | "reauthentication_required"
        | "no_provider_tokens"
        | "refresh_unsupported"
        | "provider_unavailable";
    };
