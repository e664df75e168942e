/**
 * Where the browser tests find Chromium: `CHROMIUM_PATH` (a system Chromium or Chrome), else the
 * binary that the npm package `@sparticuz/chromium` ships, unpacked under a per-user temporary
 * directory (its default, a fixed folder in the shared temp directory, breaks for a second user),
 * one folder per package version (the package reuses whatever binary it finds there), moved into
 * place only once complete. No root, no apt, no download: `npm ci` brings everything.
 *
 * The package's default flags are meant for serverless sandboxes; the ones that would turn off the
 * browser's origin checks are dropped, or every test of origins, CSRF and CSP would prove nothing.
 * `--no-sandbox` stays: it turns off the OS process sandbox (not a web-platform check), which
 * Chromium cannot start as root without, and the browser only ever loads our own local pages.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";

/**
 * Flags that weaken the same-origin policy, site isolation, mixed-content blocking or
 * cross-origin isolation (the package turns SharedArrayBuffer on without COOP/COEP).
 */
const WEAKENING = [
  "--disable-web-security",
  "--single-process",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--disable-features=AudioServiceOutOfProcess,IsolateOrigins,site-per-process",
  "--enable-features=SharedArrayBuffer",
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
  const executablePath = await unpacked(() => chromium.executablePath());
  const args = chromium.args.filter((flag) => !weakensOrigins([flag]));
  return { executablePath, args: [...args, ...QUIET] };
}

/**
 * The package's binary under `<tmp>/gatehouse-chromium-<uid>/<version>/chromium`, unpacking it on
 * first use. The package unpacks into `os.tmpdir()`, so TMPDIR points at a fresh folder meanwhile;
 * the folder is renamed into place when complete, so an interrupted unpack is never reused.
 */
async function unpacked(unpack: () => Promise<string>): Promise<string> {
  const base = join(tmpdir(), `gatehouse-chromium-${userInfo().uid}`);
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const owner = statSync(base);
  // In a shared temp directory someone else could have made the folder first and planted a binary.
  if (owner.uid !== userInfo().uid || (owner.mode & 0o022) !== 0) {
    throw new Error(`${base} is not a private folder of this user: remove it, or set CHROMIUM_PATH`);
  }
  const dir = join(base, packageVersion());
  const binary = join(dir, "chromium");
  if (existsSync(binary)) return binary;
  const partial = mkdtempSync(join(base, "unpacking-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = partial;
  try {
    const path = await unpack();
    if (path !== join(partial, "chromium")) throw new Error(`@sparticuz/chromium unpacked to ${path}, not ${partial}`);
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
  try {
    renameSync(partial, dir);
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(binary)) throw err; // else another run finished first: use its copy
  }
  return binary;
}

/** The installed @sparticuz/chromium version (its Chromium major is the version's major). */
function packageVersion(): string {
  const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium");
  const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
    version: string;
  };
  return version;
}

/** True when a flag list would make the browser tests meaningless (checked by the e2e setup). */
export function weakensOrigins(args: readonly string[]): boolean {
  return args.some((flag) => WEAKENING.some((weak) => flag.startsWith(weak.split("=")[0]!)));
}
