/**
 * The files `gatehouse-workers init` writes, as text by relative path. Pure: the caller passes
 * the secrets and versions in, so tests render a project without randomness or a file system.
 * Never writes anything itself.
 */
import { type GeneratedSecrets, renderDevVars } from "./dev-vars.ts";
import { renderPackageJson } from "./package-json.ts";
import { renderReadme } from "./readme.ts";
import { renderGitignore, renderTsconfig, renderWorkerSource } from "./worker-source.ts";
import { renderWranglerConfig } from "./wrangler-config.ts";

export { GENERATED_SECRETS, type GeneratedSecrets, LOCAL_REDIRECT_URL, localIdentityLines } from "./dev-vars.ts";
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
  ]);
}
