/**
 * @module
 * `GET /auth/device-binding`: the page a session whose role must bind a device (a session policy's
 * `deviceBindingRoles`) lands on after sign-in, until its browser has bound a key. Bound (or not
 * required after all): on to `return_to`. Still binding, for the first `BINDING_WAIT_MS` of the
 * session: a page that reloads itself every two seconds (the `Refresh` header of the HTML
 * standard) and carries a fresh `Secure-Session-Registration`, since the browser registers in the
 * background. After that: a 403 that says why — which role of which organization requires it, and
 * which browsers can — with "Try again" (while the sign-in's registration window is open) and
 * "Sign out". Signed out: to the login. JSON clients get a 403 `device_binding_required` at once. Nothing here reads a tenant or a role from the request.
 */
import { DBSC_HEADERS } from "../../../client-sdk/protocol/device-binding";
import { safeReturnTo } from "../flow/return-to";
import { errorPage, escapeHtml, page, wantsJson } from "../pages";
import type { BindingRequirement } from "../session/policy";
import type { SessionManager } from "../session/session-manager";

export const DEVICE_BINDING_PATH = "/auth/device-binding";
/** How long after sign-in the page waits for the browser to bind before saying it cannot. */
export const BINDING_WAIT_MS = 20_000;

/** The page's URL for a sign-in that must bind before going on to `returnTo` (already made safe). */
export function deviceBindingUrl(returnTo: string): string {
  return `${DEVICE_BINDING_PATH}?return_to=${encodeURIComponent(returnTo)}`;
}

export interface DeviceBindingPageOptions {
  clock: () => number;
  returnOrigins: readonly string[];
}

export async function handleDeviceBindingPage(
  request: Request,
  sessions: SessionManager,
  options: DeviceBindingPageOptions,
): Promise<Response> {
  const returnTo = safeReturnTo(new URL(request.url).searchParams.get("return_to"), "/", options.returnOrigins);
  const status = await sessions.deviceBindingStatus(request);
  if (status.state === "ready") return seeOther(returnTo);
  if (status.state === "signed_out") return seeOther(`/auth/login?return_to=${encodeURIComponent(returnTo)}`);
  const headers = new Headers({ "Cache-Control": "no-store" });
  if (status.registration) headers.set(DBSC_HEADERS.registration, status.registration);
  const why = reason(status.requirement);
  if (!wantsJson(request) && options.clock() - status.createdAt < BINDING_WAIT_MS) {
    headers.set("Refresh", "2");
    return page(
      "Binding this device",
      `<h1>Binding this device…</h1><p>${escapeHtml(why)} Your browser is creating a key that stays on this device; this page goes on by itself once it has.</p>`,
      200,
      headers,
    );
  }
  return errorPage(
    request,
    403,
    "device_binding_required",
    `${why} This browser did not bind a device key. Device-bound sessions work in Chrome 145 or later on Windows; other browsers cannot bind yet. Sign in from such a browser, or ask your organization's admin.`,
    {
      title: "This browser cannot bind a device key",
      headers,
      // Past the registration window no challenge is offered (a copied cookie must not enrol a key):
      // trying again cannot help, signing out and in again can.
      links: [
        ...(status.registration ? [{ label: "Try again", href: deviceBindingUrl(returnTo) }] : []),
        { label: "Sign out", href: "/auth/logout" },
      ],
    },
  );
}

/** Which policy asks it, in words: the role and the organization (by slug when known). */
function reason(requirement: BindingRequirement): string {
  if (requirement.organizationId === null) return "This deployment requires every session to be bound to its device.";
  const organization = requirement.organizationSlug ?? requirement.organizationId;
  if (requirement.role === "*")
    return `Every member of the organization ${organization} must use a session bound to its device.`;
  return `The role “${requirement.role}” in the organization ${organization} requires a session bound to its device.`;
}

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}
