/**
 * The generated project's package.json: npm scripts that go through this CLI and wrangler, the
 * runtime dependencies the auth worker's bundle needs, and the `node` package when the Node that
 * ran `init` is too old for wrangler 4. Renders text only; never writes a file.
 */
import { NODE_PACKAGE_RANGE } from "../node-version.ts";
import { PACKAGE_NAME } from "../package-info.ts";

export interface PackageJsonInput {
  name: string;
  /** The version of gatehouse-workers running `init`; the project depends on `^<version>`. */
  gatehouseVersion: string;
  /** Add devDependency `node` (Node 24 for npm scripts), for a machine whose Node is older than 22.12. */
  nodePackage: boolean;
}

/**
 * The tools a generated project builds with: the versions this package is tested with (a test keeps
 * them equal to the repository's devDependencies). A bare `^4` would let npm on Node 20 fall back to
 * an old wrangler whose runtime refuses the project's compatibility date.
 */
export const PROJECT_TOOLS = {
  wrangler: "^4.156.2",
  "@cloudflare/workers-types": "^5.20261117.1",
  typescript: "^5.9.0",
} as const;

export function renderPackageJson(input: PackageJsonInput): string {
  const manifest = {
    name: input.name,
    version: "0.0.0",
    private: true,
    type: "module",
    scripts: {
      dev: `${PACKAGE_NAME} dev`,
      idp: `${PACKAGE_NAME} dev-idp`,
      deploy: "wrangler deploy",
      typecheck: "tsc --noEmit",
    },
    dependencies: {
      [PACKAGE_NAME]: `^${input.gatehouseVersion}`,
      hono: "^4.6.0",
      partyserver: "^0.5.0",
      "@workos-inc/node": "^11.0.0",
    },
    devDependencies: {
      ...PROJECT_TOOLS,
      ...(input.nodePackage ? { node: NODE_PACKAGE_RANGE } : {}),
    },
    // npm 11 runs no install script it was not told about: wrangler's esbuild and workerd check
    // their platform binaries, the `node` package links its binary; sharp (an optional image
    // dependency of wrangler's local runtime) is not needed by an auth worker.
    allowScripts: {
      esbuild: true,
      workerd: true,
      sharp: false,
      ...(input.nodePackage ? { node: true } : {}),
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
