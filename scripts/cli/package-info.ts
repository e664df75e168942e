/**
 * Finds the gatehouse-workers package the tool runs from (dist/cli.js in an installed package,
 * scripts/cli/ in the repository) by walking up to the first package.json named
 * `gatehouse-workers`, so `init` pins the version that made the project. Reads files only.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "./errors.ts";

export const PACKAGE_NAME = "gatehouse-workers";

export interface OwnPackage {
  /** The directory holding the package.json. */
  root: string;
  version: string;
}

/**
 * The nearest package.json named gatehouse-workers at or above `from` (default: this module's
 * directory; `import.meta.url` rather than `import.meta.dirname`, which Node 20.0–20.10 lacks).
 */
export function findOwnPackage(from: string = dirname(fileURLToPath(import.meta.url))): OwnPackage {
  let dir = from;
  for (;;) {
    const manifest = readManifest(join(dir, "package.json"));
    if (manifest?.name === PACKAGE_NAME && typeof manifest.version === "string") {
      return { root: dir, version: manifest.version };
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new CliError("package_not_found", `cannot find the package.json of ${PACKAGE_NAME} above ${from}`);
}

function readManifest(path: string): { name?: unknown; version?: unknown } | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? parsed : null;
  } catch {
    return null;
  }
}
