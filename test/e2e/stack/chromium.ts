/**
 * Where the browser tests find Chromium: Debian's `/usr/bin/chromium` (installed by
 * scripts/setup-browser.sh and by .ci/run), or `CHROMIUM_PATH`. A missing browser is a failure
 * with instructions, never a silent skip: these flows are part of `npm test`.
 */
import { accessSync, constants } from "node:fs";

export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `The browser tests (test/e2e) need Chromium, and there is no executable at ${path}.\n` +
        "Install it with `sudo scripts/setup-browser.sh` (Debian/Ubuntu: apt-get install chromium),\n" +
        "or point CHROMIUM_PATH at a Chromium or Chrome binary.",
    );
  }
  return path;
}
