/**
 * A team's journey from the packed tarball (issue 27), shared by the package test (which asserts
 * it) and `npm run bench` (which records its times as `adoption.*`). In an empty folder, the
 * installed package's CLI runs under the machine's own Node (PATH without any node_modules/.bin):
 * `init` of the auth worker and `init --app` of the team's worker beside it. The installs are the
 * caller's (the tarball and its peers, installed once), linked in. Both run under `wrangler dev` on
 * free ports (the generated `.dev.vars` name the default ones: the journey points them at its
 * ports, as a team changing ports would), the local provider signs Ada in over HTTP, the app's
 * guarded page greets her, a revocation at the auth worker makes the app's next request refused,
 * and both type-check strictly and bundle (`wrangler deploy --dry-run`). Loopback only.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { readDevVars } from "../../scripts/cli/dev-vars.ts";
import { ACME_ID, ADA_ID } from "../../scripts/local-idp/demo-data.ts";
import {
  answers200,
  freePort,
  LOOPBACK,
  startWranglerDev,
  type WranglerDev,
  waitUntilReady,
  writeEnvFile,
} from "../dev/index.ts";
import { node, run, TSC, userEnv, WRANGLER } from "./index.ts";

export interface JourneyResult {
  /** The Node that ran the CLI, and its version. */
  node: string;
  nodeVersion: string;
  /** Milliseconds per step. */
  times: Record<string, number>;
  /** Lines of the CLI's output that warn (a team would have to read past them). */
  warningLines: number;
  /** What the app answered: its guarded page (status, and whether it names Ada), then after the revocation. */
  pageStatus: number;
  pageNamesAda: boolean;
  afterRevokeStatus: number;
  /** The auth worker's `.dev.vars` lists the app's origin in AUTH_RETURN_ORIGINS. */
  returnOriginListed: boolean;
}

class JourneyFailed extends Error {
  override name = "JourneyFailed";
}

function must(ok: boolean, what: string): void {
  if (!ok) throw new JourneyFailed(what);
}

/** The machine's own Node: PATH without any node_modules/.bin, as a team's shell has it. */
function machineNode(): { node: string; env: NodeJS.ProcessEnv } {
  const PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((p) => !p.includes("node_modules"))
    .join(delimiter);
  const env = userEnv({ PATH, FORCE_COLOR: "0" });
  const bin = execFileSync("sh", ["-c", "command -v node"], { env, encoding: "utf8" }).trim();
  return { node: bin, env };
}

/** A generated project's `.dev.vars`, read as the CLI reads it. */
function devVars(dir: string): Record<string, string> {
  const vars = readDevVars(join(dir, ".dev.vars"));
  if (!vars) throw new JourneyFailed(`${dir} has no .dev.vars`);
  return vars;
}

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");

/**
 * Runs the journey in `work/journey` with the package installed in `installed` (a folder whose
 * node_modules holds gatehouse-workers and its peers). Throws `JourneyFailed` naming the step
 * that failed; stops everything it started either way.
 */
export async function teamJourney(work: string, installed: string): Promise<JourneyResult> {
  const times: Record<string, number> = {};
  const step = async <T>(name: string, body: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const value = await body();
    times[name] = Math.round(performance.now() - started);
    return value;
  };
  const root = join(work, "journey");
  mkdirSync(root, { recursive: true });
  const { node: nodeBin, env } = machineNode();
  const cli = join(installed, "node_modules/gatehouse-workers/dist/cli.js");
  const [idpPort, authPort, appPort] = [await freePort(), await freePort(), await freePort()];
  const authUrl = `http://${LOOPBACK}:${authPort}`;
  const appUrl = `http://${LOOPBACK}:${appPort}`;
  let warningLines = 0;
  const cliRun = async (args: string[]) => {
    const ran = await run(nodeBin, [cli, ...args], { cwd: root, env });
    must(ran.code === 0, `gatehouse-workers ${args.join(" ")} exited ${ran.code}:\n${ran.output}`);
    warningLines += ran.output.split("\n").filter((l) => /\bwarn/i.test(l)).length;
    return ran;
  };
  const processes: ChildProcess[] = [];
  const workers: WranglerDev[] = [];
  try {
    await step("init_auth_ms", () => cliRun(["init", "my-auth"]));
    await step("init_app_ms", () =>
      cliRun(["init", "--app", "my-app", "--auth", "my-auth", "--port", String(appPort)]),
    );
    const authDir = join(root, "my-auth");
    const appDir = join(root, "my-app");
    for (const dir of [authDir, appDir]) symlinkSync(join(installed, "node_modules"), join(dir, "node_modules"), "dir");
    const authVars = devVars(authDir);

    // The local provider from the installed CLI, then both workers (a private registry joins them).
    const idp = spawn(nodeBin, [cli, "dev-idp", "--port", String(idpPort)], { cwd: authDir, env, stdio: "ignore" });
    processes.push(idp);
    const registry = join(root, "registry");
    const authEnv = join(root, "auth.env");
    writeEnvFile(authEnv, {
      ...authVars,
      AUTH_REDIRECT_URL: `${authUrl}/auth/callback`,
      IDENTITY_API_PORT: String(idpPort),
    });
    const appEnv = join(root, "app.env");
    writeEnvFile(appEnv, { ...devVars(appDir), AUTH_LOGIN_URL: `${authUrl}/auth/login` });
    await step("start_ms", async () => {
      const provider = {
        name: "dev-idp",
        get exited() {
          return idp.exitCode !== null;
        },
        tail: () => "",
      } as unknown as WranglerDev; // only what waitUntilReady reads of a process
      await waitUntilReady(
        provider,
        () => answers200(`http://${LOOPBACK}:${idpPort}/__local/health`),
        "the provider answered",
      );
      const auth = await startWranglerDev({
        name: "journey-auth",
        cwd: authDir,
        port: authPort,
        persistTo: join(root, "auth-state"),
        registry,
        envFile: authEnv,
        logFile: join(root, "auth.log"),
      });
      workers.push(auth);
      const app = await startWranglerDev({
        name: "journey-app",
        cwd: appDir,
        port: appPort,
        persistTo: join(root, "app-state"),
        registry,
        envFile: appEnv,
        logFile: join(root, "app.log"),
      });
      workers.push(app);
      await waitUntilReady(auth, () => answers200(`${authUrl}/health`), "the auth worker answered");
      await waitUntilReady(
        app,
        async () => {
          const res = await fetch(`${appUrl}/`, { headers: { Cookie: "gh_session=probe" }, redirect: "manual" });
          await res.arrayBuffer();
          return res.status === 302;
        },
        "the app's AUTH binding reached the auth worker",
      );
    });

    // Signed in as a browser would, without the provider's page: login, the provider's code, callback.
    const cookie = await step("sign_in_ms", async () => {
      const login = await fetch(`${authUrl}/auth/login?return_to=${encodeURIComponent(`${appUrl}/`)}`, {
        redirect: "manual",
      });
      const authorize = new URL(login.headers.get("Location") ?? "about:blank");
      const issued = await fetch(`http://${LOOPBACK}:${idpPort}/__local/codes`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          user_id: ADA_ID,
          organization_id: ACME_ID,
          state: authorize.searchParams.get("state"),
          code_challenge: authorize.searchParams.get("code_challenge"),
          redirect_uri: authorize.searchParams.get("redirect_uri"),
        }),
      });
      must(issued.status === 201, `the provider issued no code (${issued.status})`);
      const { code } = (await issued.json()) as { code: string };
      const back = await fetch(
        `${authUrl}/auth/callback?code=${encodeURIComponent(code)}&state=${authorize.searchParams.get("state")}`,
        { headers: { Cookie: cookiesOf(login) }, redirect: "manual" },
      );
      must(back.headers.get("Location") === `${appUrl}/`, `the callback did not return to the app (${back.status})`);
      return cookiesOf(back);
    });
    const page = await step("guarded_page_ms", () =>
      fetch(`${appUrl}/`, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" }),
    );
    const pageText = await page.text();

    const revoked = await fetch(`${authUrl}/admin/users/${ADA_ID}/sessions/revoke`, {
      method: "POST",
      headers: { Authorization: `Bearer ${authVars.ADMIN_API_TOKEN}`, Accept: "application/json" },
    });
    must(revoked.status === 200, `the revocation answered ${revoked.status}`);
    const after = await fetch(`${appUrl}/api/me`, { headers: { Cookie: cookie, Accept: "application/json" } });
    await after.arrayBuffer();

    for (const [name, dir] of [
      ["auth", authDir],
      ["app", appDir],
    ] as const) {
      const typecheck = await node(TSC, ["-p", "tsconfig.json"], dir);
      must(typecheck.code === 0, `tsc of the ${name} project:\n${typecheck.output}`);
      const dry = await step(`dry_run_${name}_ms`, () =>
        node(WRANGLER, ["deploy", "--dry-run", "--outdir", "out"], dir),
      );
      must(dry.code === 0, `wrangler deploy --dry-run of the ${name} project:\n${dry.output}`);
    }
    return {
      node: nodeBin,
      nodeVersion: execFileSync(nodeBin, ["--version"], { encoding: "utf8" }).trim(),
      times,
      warningLines,
      pageStatus: page.status,
      pageNamesAda: pageText.includes("Ada"),
      afterRevokeStatus: after.status,
      returnOriginListed: (authVars.AUTH_RETURN_ORIGINS ?? "").split(",").includes(appUrl),
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    for (const p of processes) if (p.exitCode === null) p.kill("SIGTERM");
  }
}
