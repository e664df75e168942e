/**
 * What a fixture's bundle (wrangler deploy --dry-run) is made of: the npm packages wrangler's
 * module comments name (`// node_modules/<package>/…`), and whether anything Workers cannot run
 * slipped in (`node:fs`, `createRequire`).
 */
export interface BundleFacts {
  /** Packages with at least one module in the bundle, e.g. `hono`, `@workos-inc/node`. */
  packages: Set<string>;
  /** Lines that import the file system or `createRequire`. */
  forbidden: string[];
}

const MODULE_COMMENT = /^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm;
const FORBIDDEN = /(["'])(node:)?fs(\/promises)?\1|\bcreateRequire\b/;

export function scanBundle(code: string): BundleFacts {
  const packages = new Set<string>();
  for (const [, name] of code.matchAll(MODULE_COMMENT)) if (name) packages.add(name);
  const forbidden = code.split("\n").filter((line) => FORBIDDEN.test(line));
  return { packages, forbidden };
}
