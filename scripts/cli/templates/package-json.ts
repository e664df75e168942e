/**
 * The generated projects' package.json: the auth worker's (npm scripts through this CLI) and an
 * app worker's (plain `wrangler dev`), with the same dependency ranges and tools in both, so the
 * two run the same wrangler and runtime side by side, and the `node` package when the Node that
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

/**
 * gatehouse-workers' required peers, listed in both projects so npm, pnpm and yarn install the same
 * versions (npm would add them anyway). A bundle takes only what its worker imports: an app worker
 * carries no WorkOS or partyserver code.
 */
export const PEER_DEPENDENCIES = {
  hono: "^4.6.0",
  partyserver: "^0.5.0",
  "@workos-inc/node": "^11.0.0",
} as const;

/** The auth worker's: `npm run dev` is `gatehouse-workers dev` (the local provider, then wrangler). */
export function renderPackageJson(input: PackageJsonInput): string {
  return manifest(input, {
    dev: `${PACKAGE_NAME} dev`,
    idp: `${PACKAGE_NAME} dev-idp`,
    deploy: "wrangler deploy",
    typecheck: "tsc --noEmit",
  });
}

/** An app worker's: `npm run dev` is wrangler's own, on the port its wrangler.jsonc names. */
export function renderAppPackageJson(input: PackageJsonInput): string {
  return manifest(input, { dev: "wrangler dev", deploy: "wrangler deploy", typecheck: "tsc --noEmit" });
}

function manifest(input: PackageJsonInput, scripts: Record<string, string>): string {
  const manifest = {
    name: input.name,
    version: "0.0.0",
    private: true,
    type: "module",
    scripts,
    dependencies: {
      [PACKAGE_NAME]: `^${input.gatehouseVersion}`,
      ...PEER_DEPENDENCIES,
    },
    devDependencies: {
      ...PROJECT_TOOLS,
      ...(input.nodePackage ? { node: NODE_PACKAGE_RANGE } : {}),
    },
    // npm 11 runs no install script it was not told about: wrangler's esbuild and workerd check
    // their platform binaries, the `node` package links its binary; sharp (an optional image
    // dependency of wrangler's local runtime) is not needed by these workers.
    allowScripts: {
      esbuild: true,
      workerd: true,
      sharp: false,
      ...(input.nodePackage ? { node: true } : {}),
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
