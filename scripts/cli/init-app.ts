/**
 * `gatehouse-workers init --app <dir> --auth <auth-dir>`: writes a ready app worker project whose
 * pages and API the auth worker of <auth-dir> guards over a service binding (templates/app-*.ts),
 * then lists the app's local origin in that worker's AUTH_RETURN_ORIGINS (its `.dev.vars` and
 * `.dev.vars.example`), or prints the line when it cannot. Nothing of the auth worker's secrets
 * reaches the app; an existing file is never overwritten.
 */
import { basename, join, resolve } from "node:path";
import { type ParsedCommand, parsePort, stringFlag } from "./args.ts";
import { type AuthProject, addReturnOrigin, type ReturnOriginsUpdate, readAuthProject } from "./auth-project.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { NODE_PACKAGE_RANGE, needsNodePackage } from "./node-version.ts";
import { findOwnPackage } from "./package-info.ts";
import { assertUsableDirectory, displayPath, shellQuote, writeProjectFiles } from "./project-dir.ts";
import { DEFAULT_APP_PORT, localAppOrigin, renderAppProject } from "./templates/index.ts";
import { sanitizeWorkerName } from "./worker-name.ts";

export interface AppInitOptions {
  /** The app worker's name (sanitized to `[a-z0-9-]`); default: the directory's name. */
  name?: string;
  /** Its local port; default 8789. */
  port?: number;
  /** Write into a non-empty directory (still never over an existing file). */
  force?: boolean;
}

export interface AppInitDeps {
  /** The Node version the project will first run on. Default `process.versions.node`. */
  nodeVersion?: string;
  /** The gatehouse-workers version to depend on. Default: the package this tool runs from. */
  gatehouseVersion?: string;
}

export interface AppInitResult {
  /** The app's project directory, absolute. */
  dir: string;
  name: string;
  /** Its local origin, e.g. `http://127.0.0.1:8789`. */
  origin: string;
  /** The files written, relative to `dir`, in writing order. */
  files: string[];
  nodePackage: boolean;
  auth: AuthProject;
  /** AUTH_RETURN_ORIGINS of the auth worker's `.dev.vars` and `.dev.vars.example`. */
  returnOrigins: ReturnOriginsUpdate[];
}

/** The auth worker's files that list return origins: the one `npm run dev` reads, then its committed example. */
const RETURN_ORIGIN_FILES = [".dev.vars", ".dev.vars.example"] as const;

export function initAppProject(
  dir: string,
  authDir: string,
  options: AppInitOptions = {},
  deps: AppInitDeps = {},
): AppInitResult {
  const target = resolve(dir);
  const auth = readAuthProject(resolve(authDir), authDir);
  const name = sanitizeWorkerName(options.name ?? basename(target));
  if (name === auth.name) {
    throw new CliError(
      "invalid_name",
      `the app's name '${name}' is the auth worker's: pass --name <worker-name> or another directory`,
    );
  }
  const port = options.port ?? DEFAULT_APP_PORT;
  if (auth.ports.includes(port)) {
    throw new CliError(
      "usage",
      `init: port ${port} is taken by the auth worker's npm run dev (${auth.ports.join(", ")}): pick another with --port`,
    );
  }
  assertUsableDirectory(target, dir, options.force === true);

  const nodePackage = needsNodePackage(deps.nodeVersion ?? process.versions.node);
  const files = renderAppProject({
    name,
    authName: auth.name,
    authOrigin: auth.origin,
    port,
    gatehouseVersion: deps.gatehouseVersion ?? findOwnPackage().version,
    nodePackage,
  });
  writeProjectFiles(target, dir, files);

  const origin = localAppOrigin(port);
  const returnOrigins = RETURN_ORIGIN_FILES.map((file) => addReturnOrigin(join(auth.dir, file), file, origin)).filter(
    // The example is optional: a project without one is not a failure.
    (update) => update.file === ".dev.vars" || update.status !== "failed",
  );
  return { dir: target, name, origin, files: [...files.keys()], nodePackage, auth, returnOrigins };
}

/** `gatehouse-workers init --app <dir> --auth <auth-dir> [--name <worker-name>] [--port 8789] [--force]`. */
export async function runInitApp(parsed: ParsedCommand, ctx: CliContext): Promise<number> {
  const dir = stringFlag(parsed, "app");
  const authDir = stringFlag(parsed, "auth");
  if (dir === undefined || authDir === undefined || parsed.positionals.length > 0) {
    throw new CliError(
      "usage",
      "init: an app worker is made with: gatehouse-workers init --app <dir> --auth <auth-dir> [--name <worker-name>] [--port 8789]",
    );
  }
  const name = stringFlag(parsed, "name");
  const port = stringFlag(parsed, "port");
  const result = initAppProject(
    resolve(ctx.cwd, dir),
    resolve(ctx.cwd, authDir),
    {
      ...(name === undefined ? {} : { name }),
      ...(port === undefined ? {} : { port: parsePort(port, "--port") }),
      force: parsed.values.force === true,
    },
    { nodeVersion: ctx.nodeVersion },
  );
  const shown = displayPath(ctx.cwd, result.dir);
  const authShown = displayPath(ctx.cwd, result.auth.dir);
  ctx.out(
    `gatehouse-workers: created the app worker '${result.name}' in ${shown}, guarded by the auth worker '${result.auth.name}' (${authShown}) over the service binding AUTH:`,
  );
  for (const file of result.files) ctx.out(`  ${file}`);
  if (result.nodePackage) {
    ctx.out(
      `gatehouse-workers: Node ${ctx.nodeVersion} is older than 22.12 (wrangler 4 needs it): added devDependency "node": "${NODE_PACKAGE_RANGE}", so npm scripts run Node 24.`,
    );
  }
  ctx.out(`gatehouse-workers: its .dev.vars: AUTH_LOGIN_URL=${result.auth.origin}/auth/login`);
  for (const line of returnOriginLines(result, authShown)) ctx.out(`gatehouse-workers: ${line}`);
  ctx.out("");
  ctx.out("Next steps (with the auth worker's npm run dev running):");
  if (result.dir !== resolve(ctx.cwd)) ctx.out(`  cd ${shellQuote(shown)}`);
  ctx.out("  npm install");
  ctx.out(`  npm run dev      # then open ${result.origin}/ and sign in`);
  return 0;
}

/** What became of AUTH_RETURN_ORIGINS, and what the person must do about it. */
function returnOriginLines(result: AppInitResult, authShown: string): string[] {
  const devVars = join(authShown, ".dev.vars");
  const main = result.returnOrigins.find((update) => update.file === ".dev.vars");
  const changed = result.returnOrigins
    .filter((update) => update.status === "added")
    .map((u) => join(authShown, u.file));
  const lines: string[] = [];
  if (main?.status === "failed") {
    lines.push(
      `could not update ${devVars} (${main.reason}): add ${result.origin} to its AUTH_RETURN_ORIGINS (comma-separated), or a sign-in started on the app ends on the auth worker's own page:`,
      `  AUTH_RETURN_ORIGINS=${result.origin}`,
    );
  } else if (main?.status === "present") {
    lines.push(
      `${devVars} already lists ${result.origin} in AUTH_RETURN_ORIGINS: a sign-in started on the app comes back to it.`,
    );
  }
  if (changed.length > 0) {
    lines.push(
      `added ${result.origin} to AUTH_RETURN_ORIGINS in ${changed.join(" and ")}, so a sign-in started on the app comes back to it.`,
    );
  }
  if (main?.status !== "present") {
    lines.push("restart the auth worker's npm run dev if it is running: it reads .dev.vars only when it starts.");
  }
  return lines;
}
