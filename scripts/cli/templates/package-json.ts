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
      wrangler: "^4",
      "@cloudflare/workers-types": "^4.20250101.0",
      typescript: "^5.6.0",
      ...(input.nodePackage ? { node: NODE_PACKAGE_RANGE } : {}),
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
