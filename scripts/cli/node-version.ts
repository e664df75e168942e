/**
 * Which Node a generated project needs: wrangler 4 refuses Node older than 22.12, so `init` on an
 * older Node adds the `node` package (Node 24 first on PATH for npm scripts). Compares version
 * strings only; never looks at the file system.
 */

/** The oldest Node wrangler 4 runs on. */
export const WRANGLER_MIN_NODE = { major: 22, minor: 12 } as const;

/** The range of the `node` devDependency `init` adds on an older Node. */
export const NODE_PACKAGE_RANGE = "^24";

/** True when `version` (`20.19.0`, `v22.11.0`) is older than 22.12; an unreadable version counts as old. */
export function needsNodePackage(version: string): boolean {
  const match = /^v?(\d+)\.(\d+)/.exec(version.trim());
  if (!match) return true;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  return major < WRANGLER_MIN_NODE.major || (major === WRANGLER_MIN_NODE.major && minor < WRANGLER_MIN_NODE.minor);
}
