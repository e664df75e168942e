/**
 * `gatehouse-workers init <dir>`: writes a ready auth worker project (see templates/) with fresh
 * secrets checked by the worker's own rules; with `--app`, an app worker beside it (init-app.ts).
 * Refuses a non-empty directory unless forced and never overwrites a file: every path is checked
 * before the first write, and each is opened exclusively.
 */
import { randomBytes } from "node:crypto";
import { basename, dirname, join, relative, resolve } from "node:path";
import { describeProblems } from "../../workers/auth/config/rules.ts";
import { parseCommand, stringFlag } from "./args.ts";
import { checkDevVars } from "./config-check.ts";
import type { CliContext } from "./context.ts";
import { parseDevVars } from "./dev-vars.ts";
import { CliError } from "./errors.ts";
import { NODE_PACKAGE_RANGE, needsNodePackage } from "./node-version.ts";
import { findOwnPackage } from "./package-info.ts";
import { assertUsableDirectory, displayPath, shellQuote, writeProjectFiles } from "./project-dir.ts";
import {
  DEFAULT_RETURN_ORIGINS,
  GENERATED_SECRETS,
  type GeneratedSecrets,
  renderProject,
  SECRET_FILE,
} from "./templates/index.ts";
import { USAGE } from "./usage.ts";
import { sanitizeWorkerName } from "./worker-name.ts";

export interface InitOptions {
  /** The worker name (sanitized to `[a-z0-9-]`); default: the directory's name. */
  name?: string;
  /** Write into a non-empty directory (still never over an existing file). */
  force?: boolean;
}

/** What `initProject` takes from its surroundings; tests replace each. */
export interface InitDeps {
  /** `size` random bytes. Default `crypto.randomBytes`. */
  random?: (size: number) => Uint8Array;
  /** The Node version the project will first run on. Default `process.versions.node`. */
  nodeVersion?: string;
  /** The gatehouse-workers version to depend on. Default: the package this tool runs from. */
  gatehouseVersion?: string;
}

export interface InitResult {
  /** The project directory, absolute. */
  dir: string;
  name: string;
  /** The files written, relative to `dir`, in writing order. */
  files: string[];
  /** Whether devDependency `node` was added (the Node given was older than 22.12). */
  nodePackage: boolean;
}

const SECRET_BYTES = 32;

export function initProject(dir: string, options: InitOptions = {}, deps: InitDeps = {}): InitResult {
  const target = resolve(dir);
  const name = sanitizeWorkerName(options.name ?? basename(target));
  assertUsableDirectory(target, dir, options.force === true);

  const nodePackage = needsNodePackage(deps.nodeVersion ?? process.versions.node);
  const files = renderProject({
    name,
    gatehouseVersion: deps.gatehouseVersion ?? findOwnPackage().version,
    nodePackage,
    secrets: generateSecrets(deps.random ?? randomBytes),
  });
  assertValidSecrets(files.get(SECRET_FILE) ?? "");

  writeProjectFiles(target, dir, files, new Set([SECRET_FILE]));
  return { dir: target, name, files: [...files.keys()], nodePackage };
}

/**
 * `gatehouse-workers init <dir> [--name <worker-name>] [--force]`, or with `--app <dir> --auth
 * <auth-dir> [--port <port>]` an app worker (init-app.ts).
 */
export async function runInit(args: readonly string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand("init", args, {
    name: { type: "string" },
    force: { type: "boolean" },
    app: { type: "string" },
    auth: { type: "string" },
    port: { type: "string" },
  });
  if (parsed.values.help) {
    ctx.out(USAGE);
    return 0;
  }
  if (parsed.values.app !== undefined) return (await import("./init-app.ts")).runInitApp(parsed, ctx);
  for (const flag of ["auth", "port"]) {
    if (parsed.values[flag] !== undefined) {
      throw new CliError(
        "usage",
        `init: --${flag} goes with --app: gatehouse-workers init --app <dir> --auth <auth-dir>`,
      );
    }
  }
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined || extra.length > 0) {
    throw new CliError("usage", "init: expected one directory: gatehouse-workers init <dir> [--name <worker-name>]");
  }
  const name = stringFlag(parsed, "name");
  const result = initProject(
    resolve(ctx.cwd, dir),
    { ...(name === undefined ? {} : { name }), force: parsed.values.force === true },
    { nodeVersion: ctx.nodeVersion },
  );
  const shown = displayPath(ctx.cwd, result.dir);
  ctx.out(`gatehouse-workers: created the auth worker '${result.name}' in ${shown}:`);
  for (const file of result.files) ctx.out(`  ${file}`);
  if (result.nodePackage) {
    ctx.out(
      `gatehouse-workers: Node ${ctx.nodeVersion} is older than 22.12 (wrangler 4 needs it): added devDependency "node": "${NODE_PACKAGE_RANGE}", so npm scripts run Node 24.`,
    );
  }
  ctx.out(
    `gatehouse-workers: its .dev.vars lets a sign-in return to ${DEFAULT_RETURN_ORIGINS} (AUTH_RETURN_ORIGINS), where init --app serves the first app.`,
  );
  ctx.out("");
  ctx.out("Next steps:");
  if (result.dir !== resolve(ctx.cwd)) ctx.out(`  cd ${shellQuote(shown)}`);
  ctx.out("  npm install");
  ctx.out("  npm run dev      # then sign in at http://127.0.0.1:8787/auth/login");
  ctx.out("");
  ctx.out("Then, from this folder, an app worker beside it whose pages this one guards:");
  const app = relative(ctx.cwd, join(dirname(result.dir), "my-app")) || ".";
  const auth = relative(ctx.cwd, result.dir) || ".";
  ctx.out(`  npx gatehouse-workers init --app ${shellQuote(app)} --auth ${shellQuote(auth)}`);
  return 0;
}

function generateSecrets(random: (size: number) => Uint8Array): GeneratedSecrets {
  const secrets = {} as GeneratedSecrets;
  for (const variable of GENERATED_SECRETS) {
    secrets[variable] = Buffer.from(random(SECRET_BYTES)).toString("base64url");
  }
  if (new Set(Object.values(secrets)).size !== GENERATED_SECRETS.length) {
    throw new CliError("invalid_config", "the random source returned the same secret twice");
  }
  return secrets;
}

/** The written .dev.vars must pass the worker's own rules, or the worker would answer 503. */
function assertValidSecrets(devVarsText: string): void {
  const verdict = checkDevVars(parseDevVars(devVarsText), [...GENERATED_SECRETS, "AUTH_REDIRECT_URL"]);
  if (!verdict.ok) {
    throw new CliError(
      "invalid_config",
      describeProblems(verdict.problems).map((line) => `generated .dev.vars: ${line}`),
    );
  }
}
