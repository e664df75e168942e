/**
 * WorkOS's own API emulator (`workos/emulate`, the official WorkOS CLI's), installed on first use
 * into a cache folder outside the repository, never as a dependency of this project or of the
 * published package: `workos@0.14.0` exactly, without optional dependencies (a 222 MB native binary
 * under a proprietary licence that the emulator never uses) and without install scripts, about
 * 92 MB, MIT. The first run needs the npm registry; later runs are offline. Node only.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const WORKOS_EMULATOR_VERSION = "0.14.0";

/** Where the emulator lives: `$GATEHOUSE_CACHE_DIR` or `~/.cache/gatehouse`, one folder per version. */
export function emulatorCacheDir(): string {
  const base = process.env.GATEHOUSE_CACHE_DIR || join(homedir(), ".cache", "gatehouse");
  return join(base, `workos-emulator-${WORKOS_EMULATOR_VERSION}`);
}

function installedVersion(dir: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "node_modules", "workos", "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? null;
  } catch {
    return null;
  }
}

/**
 * The file URL of `workos/emulate`, installing the package first when the cache lacks it. Throws
 * with npm's own words when the install fails (no registry on a first run, say).
 */
export function ensureWorkosEmulator(log: (line: string) => void = () => {}): string {
  const dir = emulatorCacheDir();
  if (installedVersion(dir) !== WORKOS_EMULATOR_VERSION) {
    mkdirSync(dir, { recursive: true });
    // A folder of its own: npm installs into it, never into the project.
    writeFileSync(
      join(dir, "package.json"),
      `${JSON.stringify({ name: "gatehouse-workos-emulator", private: true })}\n`,
    );
    log(`gatehouse: installing workos@${WORKOS_EMULATOR_VERSION} (WorkOS's emulator) into ${dir} (first use only)`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const result = spawnSync(
      npm,
      [
        "install",
        `workos@${WORKOS_EMULATOR_VERSION}`,
        "--omit=optional",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--save-exact",
        "--loglevel=error",
      ],
      { cwd: dir, encoding: "utf8", env: { ...process.env, npm_config_engine_strict: "false" } },
    );
    if (result.status !== 0 || installedVersion(dir) !== WORKOS_EMULATOR_VERSION) {
      rmSync(join(dir, "node_modules"), { recursive: true, force: true });
      throw new Error(
        `could not install workos@${WORKOS_EMULATOR_VERSION} into ${dir}: ${(result.stderr || result.stdout || "").trim()}`,
      );
    }
  }
  const entry = join(dir, "node_modules", "workos", "dist", "emulate", "index.js");
  if (!existsSync(entry)) throw new Error(`workos@${WORKOS_EMULATOR_VERSION} has no dist/emulate/index.js in ${dir}`);
  return pathToFileURL(entry).href;
}
