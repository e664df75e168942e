/**
 * @module
 * The banner every page shows while an operator is signed in as someone else (written by the auth
 * middleware into every HTML page it guards). Escaped: the operator's email and reason are theirs.
 */
import { escapeHtml } from "../html/escape";

/** What every page shows while an operator is signed in as someone else. Escaped. */
export function impersonationBanner(impersonator: { email: string; reason: string | null }): string {
  const reason = impersonator.reason ? ` Reason: ${escapeHtml(impersonator.reason)}.` : "";
  return `<p role="alert" data-gatehouse-impersonation><strong>Impersonation:</strong> ${escapeHtml(impersonator.email)} is signed in as this person.${reason} This session cannot sign out other sessions or change settings, and ends soon.</p>`;
}
