/**
 * Where the browser tests find Chromium: `CHROMIUM_PATH` (a system Chromium or Chrome), else the
 * binary that the npm package `@sparticuz/chromium` ships, unpacked under a per-user temporary
 * directory (its default, a fixed folder in the shared temp directory, breaks for a second user).
 * No root, no apt, no download: `npm ci` brings everything.
 *
 * The package's default flags are meant for serverless sandboxes; the ones that would turn off the
 * browser's origin checks are dropped, or every test of origins, CSRF and CSP would prove nothing.
 */
import { mkdirSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** Flags that weaken the same-origin policy, site isolation or mixed-content blocking. */
const WEAKENING = [
  "--disable-web-security",
  "--single-process",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--disable-features=AudioServiceOutOfProcess,IsolateOrigins,site-per-process",
];

/** Flags every run gets: quiet (no background traffic), no first-run UI. */
const QUIET = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export interface ChromiumLaunch {
  executablePath: string;
  args: string[];
}

export async function chromiumLaunch(): Promise<ChromiumLaunch> {
  const system = process.env.CHROMIUM_PATH;
  if (system) return { executablePath: system, args: ["--no-sandbox", "--disable-gpu", ...QUIET] };
  const { default: chromium } = await import("@sparticuz/chromium");
  const dir = join(tmpdir(), `gatehouse-chromium-${userInfo().uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir; // the package unpacks into os.tmpdir()
  try {
    const executablePath = await chromium.executablePath();
    const args = chromium.args.filter((flag) => !WEAKENING.some((weak) => flag.startsWith(weak.split("=")[0]!)));
    return { executablePath, args: [...args, ...QUIET] };
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
}

/** True when a flag list would make the browser tests meaningless (checked by the e2e setup). */
export function weakensOrigins(args: readonly string[]): boolean {
  return args.some((flag) => WEAKENING.some((weak) => flag.startsWith(weak.split("=")[0]!)));
}
