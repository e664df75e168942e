/**
 * @module
 * Fixed words for the identity provider's `error` codes at the callback.
 * The callback URL is public: anyone can send a person to
 * `/auth/callback?error=…&error_description=…`, so the page never shows the
 * query's text, only one of these messages.
 */

const MESSAGES: Readonly<Record<string, string>> = {
  access_denied: "The sign-in was cancelled or not allowed. You can try again.",
  login_required: "The identity provider needs you to sign in again.",
  consent_required: "The identity provider needs your consent before signing you in.",
  interaction_required: "The identity provider needs you to finish signing in there first.",
  account_selection_required: "Choose an account at the identity provider, then try again.",
  invalid_request: "The sign-in request was not accepted by the identity provider.",
  unauthorized_client: "This application is not allowed to sign you in this way.",
  unsupported_response_type: "The sign-in request was not accepted by the identity provider.",
  invalid_scope: "The sign-in request was not accepted by the identity provider.",
  server_error: "The identity provider had a problem signing you in. Please try again.",
  temporarily_unavailable: "The identity provider is busy right now. Please try again in a moment.",
};

const GENERIC = "The identity provider did not sign you in. Please try again.";

/** The message shown for a provider `error` code: a fixed sentence, never the code's own text. */
export function providerErrorMessage(code: string): string {
  return Object.hasOwn(MESSAGES, code) ? MESSAGES[code]! : GENERIC;
}
