/**
 * The files `gatehouse-workers init` writes, as text by relative path: the auth worker's project
 * (`init <dir>`) and an app worker's (`init --app <dir> --auth <auth-dir>`). Pure: the caller
 * passes the secrets, versions and names in, so tests render a project without randomness or a
 * file system. Never writes anything itself.
 */
import { renderAppDevVars, renderAppDotEnv, renderAppWranglerConfig } from "./app-config.ts";
import { renderAppReadme } from "./app-readme.ts";
import { renderAppSource } from "./app-source.ts";
import { type GeneratedSecrets, renderDevVars } from "./dev-vars.ts";
import { renderNpmrc } from "./npmrc.ts";
import { renderAppPackageJson, renderPackageJson } from "./package-json.ts";
import { renderReadme } from "./readme.ts";
import { renderGitignore, renderTsconfig, renderWorkerSource } from "./worker-source.ts";
import { renderWranglerConfig } from "./wrangler-config.ts";

export { DEFAULT_APP_PORT, localAppOrigin } from "./app-config.ts";
export {
  DEFAULT_RETURN_ORIGINS,
  GENERATED_SECRETS,
  type GeneratedSecrets,
  LOCAL_REDIRECT_URL,
  localIdentityLines,
} from "./dev-vars.ts";
export { COMPATIBILITY_DATE, PLACEHOLDER_KV_ID } from "./wrangler-config.ts";

export interface ProjectInput {
  name: string;
  gatehouseVersion: string;
  nodePackage: boolean;
  secrets: GeneratedSecrets;
}

/** The private file: written with mode 0600. */
export const SECRET_FILE = ".dev.vars";

/** Every file of a new project, by path relative to the project directory (`/` separators). */
export function renderProject(input: ProjectInput): Map<string, string> {
  return new Map([
    ["package.json", renderPackageJson(input)],
    ["wrangler.jsonc", renderWranglerConfig(input.name)],
    ["tsconfig.json", renderTsconfig()],
    [".gitignore", renderGitignore()],
    [SECRET_FILE, renderDevVars(input.secrets)],
    [".dev.vars.example", renderDevVars(null)],
    ["README.md", renderReadme(input.name)],
    ["src/index.ts", renderWorkerSource()],
    ...npmrc(input.nodePackage),
  ]);
}

/** `.npmrc` only where the `node` devDependency was added (see npmrc.ts). */
function npmrc(nodePackage: boolean): [string, string][] {
  return nodePackage ? [[".npmrc", renderNpmrc()]] : [];
}

export interface AppProjectInput {
  name: string;
  /** The auth worker's name (its wrangler config's `name`): the AUTH binding's service. */
  authName: string;
  /** The auth worker's local origin, e.g. `http://127.0.0.1:8787`. */
  authOrigin: string;
  /** The app's local port. */
  port: number;
  gatehouseVersion: string;
  nodePackage: boolean;
}

/** Every file of a new app worker project; none holds a secret. */
export function renderAppProject(input: AppProjectInput): Map<string, string> {
  const loginUrl = `${input.authOrigin}/auth/login`;
  return new Map([
    ["package.json", renderAppPackageJson(input)],
    ["wrangler.jsonc", renderAppWranglerConfig(input)],
    ["tsconfig.json", renderTsconfig()],
    [".gitignore", renderGitignore()],
    [".dev.vars", renderAppDevVars(loginUrl)],
    [".dev.vars.example", renderAppDevVars(loginUrl, true)],
    [".env", renderAppDotEnv()],
    ["README.md", renderAppReadme(input)],
    ["src/index.ts", renderAppSource(input.name)],
    ...npmrc(input.nodePackage),
  ]);
}
