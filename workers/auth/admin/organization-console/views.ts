/**
 * @module
 * The organization console's page: the organization's session policy (a form) and kill switch
 * (throw or lift), with the notice of what was just done. Text only; every value is escaped. The
 * one place here that names a policy's fields: the form's inputs, what it reads back
 * (`policyFormValues`, checked whole by `session/policy.ts`), and its summary.
 */
import type { SessionPolicy } from "../../../../client-sdk/protocol/policy";
import { csrfField, timeTag } from "../../account/view";
import { escapeHtml } from "../../pages";
import type { AppUser } from "../../types";

export const ORGANIZATIONS_PATH = "/account/organizations";

export type Membership = AppUser["memberships"][number];

/** What the policy form sent, as a policy to check (`validatePolicy` refuses what is not one). */
export function policyFormValues(form: FormData): Record<keyof SessionPolicy, unknown> {
  const raw = String(form.get("maxSessions") ?? "").trim();
  const roles = String(form.get("deviceBindingRoles") ?? "")
    .split(",")
    .map((role) => role.trim())
    .filter((role) => role !== "");
  return {
    maxSessions: raw === "" ? null : Number(raw),
    onLimit: String(form.get("onLimit") ?? "evict-oldest"),
    deviceBindingRoles: roles.length === 0 ? null : roles,
  };
}

/** The organizations the person is an admin of, each a link to its console. */
export function organizationsBody(admin: readonly Membership[]): string {
  const items = admin
    .map(
      (m) =>
        `<li><a href="${ORGANIZATIONS_PATH}/${encodeURIComponent(m.organizationId)}">${escapeHtml(m.organizationSlug)}</a></li>`,
    )
    .join("");
  return `<h1>Your organizations</h1>${
    items ? `<ul>${items}</ul>` : `<p class="muted">You are not an admin of any organization.</p>`
  }`;
}

/** One organization's console: its policy form, its kill switch, what was just done. */
export function organizationBody(
  membership: Membership,
  current: { policy: SessionPolicy; source: string },
  epoch: number | null,
  csrf: string,
  notice: string | null,
): string {
  const base = `${ORGANIZATIONS_PATH}/${encodeURIComponent(membership.organizationId)}`;
  const cap = current.policy.maxSessions;
  const roles = current.policy.deviceBindingRoles ?? null;
  const said =
    notice === "policy"
      ? "The session policy was saved."
      : notice === "kill-switch"
        ? "Every member's sessions were ended."
        : notice === "lifted"
          ? "The kill switch was lifted."
          : null;
  const option = (value: string, label: string) =>
    `<option value="${value}"${current.policy.onLimit === value ? " selected" : ""}>${label}</option>`;
  return `<h1>Organization ${escapeHtml(membership.organizationSlug)}</h1>
${said ? `<p role="status"><strong>${escapeHtml(said)}</strong></p>` : ""}
<h2>Session policy</h2>
<p class="muted">Now: ${cap === null ? "no cap" : `at most ${cap} sessions per person`}, ${escapeHtml(current.policy.onLimit)}, ${roles === null ? "no device binding required" : `device-bound sessions required for ${escapeHtml(roles.join(", "))}`} (${escapeHtml(current.source)}).</p>
<form method="post" action="${base}/policy">${csrfField(csrf)}
<label>Sessions per person (empty: no cap) <input name="maxSessions" inputmode="numeric" value="${cap === null ? "" : String(cap)}"></label>
<label>Past it <select name="onLimit">${option("evict-oldest", "sign out the oldest")}${option("refuse-new", "refuse the new sign-in")}</select></label>
<label>Roles that must use a device-bound session (comma-separated; * for everyone; empty: none) <input name="deviceBindingRoles" value="${escapeHtml(roles === null ? "" : roles.join(", "))}"></label>
<button type="submit">Save policy</button></form>
<form method="post" action="${base}/policy/clear">${csrfField(csrf)}<button type="submit" class="secondary">Use the default policy</button></form>
<h2>Kill switch</h2>
<p class="muted">${epoch === null ? "Not thrown." : `Thrown ${timeTag(epoch)}: sessions issued before it are refused.`}</p>
<form method="post" action="${base}/kill-switch">${csrfField(csrf)}<button type="submit" class="danger">End every member's sessions</button></form>
${epoch === null ? "" : `<form method="post" action="${base}/kill-switch/lift">${csrfField(csrf)}<button type="submit" class="secondary">Lift the kill switch</button></form>`}
<p><a href="${ORGANIZATIONS_PATH}">Your organizations</a> · <a href="/account/sessions">Your sessions</a></p>`;
}
