/**
 * What a fixture's bundle (wrangler deploy --dry-run) is made of: the npm packages wrangler's
 * module comments name (`// node_modules/<package>/…`) or, in a minified bundle (no comments),
 * its source map's sources, whether anything Workers cannot run
 * slipped in (`node:fs`, `createRequire`), which `node:` built-ins it imports (a consuming worker
 * imports none, so it needs no `nodejs_compat`), and whether code of postgres.js or
 * @cloudflare/containers is there under any name (strings only those libraries carry, so a copy
 * inlined into one of our own modules is caught too, not only a `node_modules/<package>` module).
 */
export interface BundleFacts {
  /** Packages with at least one module in the bundle, e.g. `hono`, `@workos-inc/node`. */
  packages: Set<string>;
  /** Lines that import the file system or `createRequire`. */
  forbidden: string[];
  /** The `node:` modules the bundle imports or requires, e.g. `node:crypto`. */
  nodeBuiltins: string[];
  /** Libraries of `LIBRARY_MARKERS` whose code is in the bundle, e.g. `postgres`. */
  libraries: string[];
}

const MODULE_COMMENT = /^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm;
/** A source of the source map (relative to the output folder): its package, as the module comments name it. */
const MAP_SOURCE = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//;
const FORBIDDEN = /(["'])(node:)?fs(\/promises)?\1|\bcreateRequire\b/;
/** `import … from "node:x"`, `import "node:x"`, `import("node:x")`, `require("node:x")`, `export … from "node:x"`. */
const NODE_BUILTIN = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])(node:[\w/]+)\1/g;

/**
 * Strings that only these libraries' code contains (error codes and messages of their own; none
 * of ours uses them). The scan's own test checks them against the installed libraries.
 */
export const LIBRARY_MARKERS: Record<string, readonly string[]> = {
  postgres: ["SASL_SIGNATURE_MISMATCH", "MAX_PARAMETERS_EXCEEDED"],
  "@cloudflare/containers": [
    "there is no container instance that can be provided to this durable object",
    "port value from switchPort is not a number",
  ],
};

/** `map`: the bundle's source map (`<main>.js.map`, which wrangler writes beside it), for a minified bundle. */
export function scanBundle(code: string, map?: { sources: readonly string[] }): BundleFacts {
  const packages = new Set<string>();
  for (const [, name] of code.matchAll(MODULE_COMMENT)) if (name) packages.add(name);
  for (const source of map?.sources ?? []) {
    const name = MAP_SOURCE.exec(source)?.[1];
    if (name) packages.add(name);
  }
  const forbidden = code.split("\n").filter((line) => FORBIDDEN.test(line));
  const nodeBuiltins = [...new Set([...code.matchAll(NODE_BUILTIN)].map((m) => m[2]!))].sort();
  const libraries = Object.entries(LIBRARY_MARKERS)
    .filter(([, markers]) => markers.some((marker) => code.includes(marker)))
    .map(([name]) => name);
  return { packages, forbidden, nodeBuiltins, libraries };
}
