/**
 * Flow 7 (issue 17): the same person on two "devices" (browser contexts with their own
 * User-Agent and location). The activity page of the first shows the second device's sign-in
 * live, as a new device; the sessions page shows both with their places and marks the new one;
 * signing the second out from the first ends its tab live and appears on the open activity page
 * without a reload; and the local identity provider has received the signed events.
 */
import { expect, it } from "vitest";
import {
  live,
  newPerson,
  SIGN_IN_PAGE,
  screenshot,
  sessionIdOf,
  signedInTab,
  stack,
  useBrowser,
} from "./support/browser";

const browser = useBrowser();

const LAPTOP = {
  userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0",
  location: "PT;Lisbon;Lisbon;LIS",
};
const PHONE = {
  userAgent:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
  location: "JP;Osaka;Osaka;KIX",
};

interface Delivery {
  type: string;
  user_id: string;
  session_id: string | null;
  device: string | null;
  location: { city: string | null } | null;
}

/** The provider's inbox of security events (GET /__local/security-events), until `done` holds. */
async function deliveries(done: (all: Delivery[]) => boolean): Promise<Delivery[]> {
  const deadline = performance.now() + 15_000;
  for (;;) {
    const res = await fetch(`${stack.idpUrl}/__local/security-events`);
    const all = ((await res.json()) as { deliveries: Delivery[] }).deliveries;
    if (done(all) || performance.now() > deadline) return all;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it("two devices: each with its place, the new one marked and shown live; signing it out shows on the activity page live", async () => {
  const laptop = await newPerson(browser(), LAPTOP);
  const phone = await newPerson(browser(), PHONE);

  const activity = await signedInTab(laptop, "Alan Turing", "Acme", "/account/activity");
  const laptopSession = await sessionIdOf(activity);
  await live(activity);
  const navigations: string[] = [];
  activity.on("framenavigated", (frame) => {
    if (frame === activity.mainFrame()) navigations.push(frame.url());
  });

  // The phone signs in: the laptop's open activity page shows it, as a new device, without a reload.
  const phoneTab = await signedInTab(phone, "Alan Turing", "Acme", "/account/sessions");
  const phoneSession = await sessionIdOf(phoneTab);
  await live(phoneTab);
  const newDevice = activity.locator('li[data-type="session.new_device"]', { hasText: "Osaka, JP (KIX)" });
  await newDevice.waitFor({ timeout: 5_000 });
  expect(await newDevice.textContent()).toContain("Safari 18 on iOS");
  await expect(newDevice.getByRole("button", { name: /This wasn't me/ }).count()).resolves.toBe(1);

  // The laptop's sessions page: both devices with their places; the phone marked new, with "this wasn't me".
  const sessions = await laptop.newPage();
  await sessions.goto(`${stack.authUrl}/account/sessions`);
  await live(sessions);
  const mine = sessions.locator(`li[data-session-id="${laptopSession}"]`);
  const phoneRow = sessions.locator(`li[data-session-id="${phoneSession}"]`);
  expect(await mine.textContent()).toMatch(/Firefox 140 on macOS — this device[\s\S]*Lisbon, PT \(LIS\)/);
  expect(await phoneRow.textContent()).toMatch(/Safari 18 on iOS[\s\S]*Osaka, JP \(KIX\)[\s\S]*first seen/);
  expect(await phoneRow.getAttribute("data-new-device")).toBe("true");
  expect(await phoneRow.getByRole("button", { name: /This wasn't me/ }).count()).toBe(1);
  await screenshot(sessions, "7-devices");

  // Sign the phone out from the laptop: the phone's tab is told, the activity page shows it live.
  await phoneRow.getByRole("button", { name: "Sign out", exact: true }).click();
  await sessions.waitForURL(`${stack.authUrl}/account/sessions?signed_out=1`);
  await phoneTab.waitForURL(SIGN_IN_PAGE, { timeout: 5_000 });
  const revoked = activity.locator('li[data-type="session.revoked"]', { hasText: "signed out by you" });
  await revoked.waitFor({ timeout: 5_000 });
  expect(navigations).toEqual([]);
  await screenshot(activity, "7-activity-live");

  // The loop closes on one machine: the provider received the signed events of both devices.
  const all = await deliveries((d) => d.some((e) => e.type === "session.revoked" && e.session_id === phoneSession));
  const ours = all.filter((e) => e.session_id === phoneSession || e.session_id === laptopSession);
  expect(ours.find((e) => e.type === "session.new_device" && e.session_id === phoneSession)?.location?.city).toBe(
    "Osaka",
  );
  expect(ours.some((e) => e.type === "session.signed_in" && e.session_id === laptopSession)).toBe(true);
  expect(ours.some((e) => e.type === "session.revoked" && e.session_id === phoneSession)).toBe(true);
  await Promise.all([laptop.close(), phone.close()]);
});
