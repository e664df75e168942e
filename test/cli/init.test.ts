// `gatehouse-workers init`: the exact files, fresh secrets that pass the worker's own rules (and the
// CLI's check of the security-events secret, which those rules do not cover), a private .dev.vars, refusal of a non-empty directory, never an overwrite, the worker name, the
// pinned gatehouse-workers version and the `node` devDependency on an old Node. `init --app`: the app
// beside it, bound to the auth worker by name, and the auth worker's AUTH_RETURN_ORIGINS updated (or printed).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as runInProcess } from "../../scripts/cli/cli.ts";
import { parseDevVars } from "../../scripts/cli/dev-vars.ts";
import { CliError } from "../../scripts/cli/errors.ts";
import { initProject } from "../../scripts/cli/init.ts";
import { initAppProject } from "../../scripts/cli/init-app.ts";
import { checkAuthEnvironment, SECRET_VARIABLES, secretProblem } from "../../workers/auth/config/rules.ts";
import { captureContext, REPO_ROOT, runCli, STACK_LINE, tempDir } from "./helpers.ts";

const FILES = [
  ".dev.vars",
  ".dev.vars.example",
  ".gitignore",
  "README.md",
  "package.json",
  "src/index.ts",
  "tsconfig.json",
  "wrangler.jsonc",
];
/** The secrets the worker's rules check. */
const WORKER_SECRETS = ["SESSION_SECRET", "ADMIN_API_TOKEN", "IDENTITY_WEBHOOK_SECRET"] as const;
const SECRETS = [...WORKER_SECRETS, "SECURITY_EVENTS_WEBHOOK_SECRET"] as const;

/** Every file under `dir`, relative, sorted. */
function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      return entry.isDirectory() ? listFiles(dir, path) : [path];
    })
    .sort();
}

function devVarsOf(dir: string): Record<string, string> {
  return parseDevVars(readFileSync(join(dir, ".dev.vars"), "utf8"));
}

function packageJsonOf(dir: string) {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    private: boolean;
    type: string;
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    allowScripts: Record<string, boolean>;
  };
}

function thrown(fn: () => unknown): CliError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error("expected a CliError");
}

describe("initProject", () => {
  it("writes exactly the project's files and reports them", () => {
    const dir = join(tempDir(), "auth");
    const result = initProject(dir, {}, { nodeVersion: "24.11.0" });
    expect([...result.files].sort()).toEqual(FILES);
    expect(listFiles(dir)).toEqual(FILES);
    expect(result.dir).toBe(dir);
    expect(result.name).toBe("auth");
  });

  it("generates distinct secrets of at least 32 characters that pass the worker's rules", () => {
    const root = tempDir();
    const first = devVarsOf(initProject(join(root, "one"), {}, { nodeVersion: "24.11.0" }).dir);
    const second = devVarsOf(initProject(join(root, "two"), {}, { nodeVersion: "24.11.0" }).dir);
    const values = SECRETS.flatMap((name) => [first[name], second[name]]);
    for (const value of values) expect(value?.length).toBeGreaterThanOrEqual(32);
    expect(new Set(values).size).toBe(values.length);
    expect(checkAuthEnvironment(first, [...SECRETS, "AUTH_REDIRECT_URL"])).toEqual({ ok: true });
    expect(secretProblem(first.SECURITY_EVENTS_WEBHOOK_SECRET ?? "")).toBeNull();
    expect(first.AUTH_REDIRECT_URL).toBe("http://127.0.0.1:8787/auth/callback");
    // The first app's origin (init --app's default port), so a running auth worker already sends its people back.
    expect(first.AUTH_RETURN_ORIGINS).toBe("http://127.0.0.1:8789");
    expect(SECRET_VARIABLES).toEqual(expect.arrayContaining([...WORKER_SECRETS]));
  });

  it("takes its randomness from the injected source", () => {
    let counter = 0;
    const random = (size: number) => Uint8Array.from({ length: size }, () => counter++ % 251);
    const vars = devVarsOf(initProject(join(tempDir(), "p"), {}, { random, nodeVersion: "24.11.0" }).dir);
    const expected = Buffer.from(Uint8Array.from({ length: 32 }, (_, i) => i)).toString("base64url");
    expect(vars.SESSION_SECRET).toBe(expected);
  });

  it("refuses secrets the worker's rules would refuse, before writing anything", () => {
    const dir = join(tempDir(), "weak");
    const error = thrown(() => initProject(dir, {}, { random: (n) => new Uint8Array(n), nodeVersion: "24.11.0" }));
    expect(error.code).toBe("invalid_config");
    expect(existsSync(dir)).toBe(false);
  });

  it("refuses a weak security-events secret too, naming it, before writing anything", () => {
    let calls = 0;
    // Three good secrets, then 32 zero bytes (43 "A"s: too little variety) for the fourth.
    const random = (size: number) =>
      calls++ < 3 ? Uint8Array.from({ length: size }, (_, i) => (i * 7 + calls * 53) % 256) : new Uint8Array(size);
    const dir = join(tempDir(), "weak-events");
    const error = thrown(() => initProject(dir, {}, { random, nodeVersion: "24.11.0" }));
    expect(error.code).toBe("invalid_config");
    expect(error.lines).toEqual([
      "generated .dev.vars: SECURITY_EVENTS_WEBHOOK_SECRET has fewer than 8 distinct characters: not a random secret",
    ]);
    expect(existsSync(dir)).toBe(false);
  });

  it("points the identity lines at the local provider's defaults", () => {
    const vars = devVarsOf(initProject(join(tempDir(), "p"), {}, { nodeVersion: "24.11.0" }).dir);
    expect(vars).toMatchObject({
      IDENTITY_API_KEY: "sk_test_local",
      IDENTITY_CLIENT_ID: "client_local",
      IDENTITY_API_HOSTNAME: "127.0.0.1",
      IDENTITY_API_PORT: "8788",
      IDENTITY_API_HTTPS: "false",
    });
  });

  it.skipIf(process.platform === "win32")("writes .dev.vars with mode 0600", () => {
    const dir = initProject(join(tempDir(), "p"), {}, { nodeVersion: "24.11.0" }).dir;
    expect(statSync(join(dir, ".dev.vars")).mode & 0o777).toBe(0o600);
    // Every generated secret, the security events' one included, lives in that private file alone.
    for (const name of SECRETS) expect(devVarsOf(dir)[name]?.length).toBeGreaterThanOrEqual(32);
    // Only the file with secrets is made private: the example keeps the usual mode (0666 less the umask).
    expect(statSync(join(dir, ".dev.vars.example")).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it("refuses a non-empty directory unless forced", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "notes.txt"), "mine");
    expect(thrown(() => initProject(dir, {}, { nodeVersion: "24.11.0" })).code).toBe("not_empty");
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
    initProject(dir, { force: true }, { nodeVersion: "24.11.0" });
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");
    expect(listFiles(dir)).toEqual([...FILES, "notes.txt"].sort());
  });

  it("never overwrites a file, even forced, and then writes none", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src/index.ts"), "// mine\n");
    writeFileSync(join(dir, ".dev.vars"), "SESSION_SECRET=mine\n");
    const error = thrown(() => initProject(dir, { force: true }, { nodeVersion: "24.11.0" }));
    expect(error.code).toBe("would_overwrite");
    expect(error.message).toContain(".dev.vars");
    expect(error.message).toContain("src/index.ts");
    expect(readFileSync(join(dir, "src/index.ts"), "utf8")).toBe("// mine\n");
    expect(readFileSync(join(dir, ".dev.vars"), "utf8")).toBe("SESSION_SECRET=mine\n");
    expect(listFiles(dir)).toEqual([".dev.vars", "src/index.ts"]);
  });

  it("derives the worker name from the directory, sanitized to [a-z0-9-]", () => {
    const root = tempDir();
    const result = initProject(join(root, "My Auth_Worker!"), {}, { nodeVersion: "24.11.0" });
    expect(result.name).toBe("my-auth-worker");
    expect(packageJsonOf(result.dir).name).toBe("my-auth-worker");
    expect(readFileSync(join(result.dir, "wrangler.jsonc"), "utf8")).toContain('"name": "my-auth-worker"');
    expect(initProject(join(root, "x"), { name: "--Édition 2--" }, { nodeVersion: "24.11.0" }).name).toBe("edition-2");
    expect(thrown(() => initProject(join(root, "y"), { name: "!!!" }, { nodeVersion: "24.11.0" })).code).toBe(
      "invalid_name",
    );
  });

  it("depends on ^ + the version of the gatehouse-workers it runs from", () => {
    const repo = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    const manifest = packageJsonOf(initProject(join(tempDir(), "p"), {}, { nodeVersion: "24.11.0" }).dir);
    expect(manifest.dependencies["gatehouse-workers"]).toBe(`^${repo.version}`);
    expect(manifest).toMatchObject({
      private: true,
      type: "module",
      scripts: {
        dev: "gatehouse-workers dev",
        idp: "gatehouse-workers dev-idp",
        deploy: "wrangler deploy",
        typecheck: "tsc --noEmit",
      },
      dependencies: { hono: "^4.6.0", partyserver: "^0.5.0", "@workos-inc/node": "^11.0.0" },
      devDependencies: { wrangler: "^4.156.2", "@cloudflare/workers-types": "^5.20261117.1", typescript: "^5.9.0" },
      // npm 11 runs only the install scripts a project allows: wrangler's binaries yes, sharp no.
      allowScripts: { esbuild: true, workerd: true, sharp: false },
    });
  });

  it.each([
    ["20.19.0", true],
    ["22.11.9", true],
    ["v18.20.4", true],
    ["22.12.0", false],
    ["23.0.0", false],
    ["24.11.0", false],
  ])("adds devDependency node only on a Node older than 22.12 (%s → %s)", (nodeVersion, expected) => {
    const result = initProject(join(tempDir(), "p"), {}, { nodeVersion });
    expect(result.nodePackage).toBe(expected);
    const { devDependencies, allowScripts } = packageJsonOf(result.dir);
    if (expected) {
      expect(devDependencies.node).toBe("^24");
      expect(allowScripts.node).toBe(true);
    } else {
      expect(devDependencies).not.toHaveProperty("node");
      expect(allowScripts).not.toHaveProperty("node");
    }
    // No EBADENGINE warning to read past on that Node (issue 27): the .npmrc says why, errors still print.
    const npmrc = join(result.dir, ".npmrc");
    expect(existsSync(npmrc)).toBe(expected);
    if (expected) expect(readFileSync(npmrc, "utf8")).toMatch(/^loglevel=error$/m);
  });
});

describe("gatehouse-workers init (the executable)", () => {
  it("creates the project and prints the next steps", async () => {
    const cwd = tempDir();
    const result = await runCli(["init", "my-auth", "--name", "edge-auth"], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("created the auth worker 'edge-auth' in my-auth");
    expect(result.stdout).toMatch(/cd my-auth\n\s+npm install\n\s+npm run dev/);
    expect(result.stdout).toContain("AUTH_RETURN_ORIGINS");
    expect(result.stdout).toMatch(/\n {2}npx gatehouse-workers init --app my-app --auth my-auth\n$/);
    expect(listFiles(join(cwd, "my-auth"))).toEqual(FILES);
  });

  it("names the app beside a project made in the current directory", async () => {
    const cwd = join(tempDir(), "team-auth");
    mkdirSync(cwd);
    const result = await runCli(["init", "."], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("npx gatehouse-workers init --app ../my-app --auth .\n");
  });

  it("refuses a non-empty directory with one line and exit code 1", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "keep.txt"), "x");
    const result = await runCli(["init", "."], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^gatehouse-workers: .* is not empty \(pass --force.*\)\n$/);
    expect(result.stderr).not.toContain(STACK_LINE);
    expect(readdirSync(cwd)).toEqual(["keep.txt"]);
  });
});

/** An app worker's files: the auth worker's, plus `.env` (its dev server's own quiet switch). */
const APP_FILES = [...FILES, ".env"].sort();

/** An auth worker project made by init in a fresh temp folder, and that folder. */
function authProject(name = "my-auth"): { root: string; auth: string } {
  const root = tempDir();
  return { root, auth: initProject(join(root, name), {}, { nodeVersion: "24.11.0" }).dir };
}

describe("initAppProject", () => {
  it("writes the app's files beside the auth worker's, bound to it by name, with its login URL", () => {
    const { root, auth } = authProject("team-auth");
    const result = initAppProject(join(root, "shop"), auth, {}, { nodeVersion: "24.11.0" });
    expect(result).toMatchObject({ name: "shop", origin: "http://127.0.0.1:8789", nodePackage: false });
    expect(result.auth).toMatchObject({ name: "team-auth", origin: "http://127.0.0.1:8787" });
    expect(listFiles(result.dir)).toEqual(APP_FILES);
    expect(readFileSync(join(result.dir, "wrangler.jsonc"), "utf8")).toContain(
      '"services": [{ "binding": "AUTH", "service": "team-auth", "entrypoint": "AuthService" }]',
    );
    expect(devVarsOf(result.dir)).toEqual({ AUTH_LOGIN_URL: "http://127.0.0.1:8787/auth/login" });
  });

  it("copies none of the auth worker's secrets into any file of the app", () => {
    const { root, auth } = authProject();
    const secrets = SECRETS.map((name) => devVarsOf(auth)[name]!);
    const app = initAppProject(join(root, "my-app"), auth, {}, { nodeVersion: "24.11.0" }).dir;
    for (const file of APP_FILES) {
      const text = readFileSync(join(app, file), "utf8");
      for (const secret of secrets) expect(text, file).not.toContain(secret);
      for (const name of SECRETS) expect(text, file).not.toContain(name);
    }
  });

  it("finds the auth worker's name in wrangler.toml or wrangler.json, and its origin in AUTH_REDIRECT_URL", () => {
    const root = tempDir();
    const toml = join(root, "toml-auth");
    mkdirSync(toml);
    writeFileSync(
      join(toml, "wrangler.toml"),
      'name = "edge-auth" # the worker\nmain = "src/index.ts"\n\n[dev]\nport = 9100\n',
    );
    const fromToml = initAppProject(join(root, "a"), toml, {}, { nodeVersion: "24.11.0" });
    expect(fromToml.auth).toMatchObject({ name: "edge-auth", origin: "http://127.0.0.1:9100" });
    const json = join(root, "json-auth");
    mkdirSync(json);
    writeFileSync(join(json, "wrangler.json"), '{ /* c */ "name": "json-auth", "dev": { "port": 9200, }, }');
    writeFileSync(join(json, ".dev.vars"), "AUTH_REDIRECT_URL=http://localhost:9300/auth/callback\n");
    const fromJson = initAppProject(join(root, "b"), json, {}, { nodeVersion: "24.11.0" });
    expect(fromJson.auth).toMatchObject({ name: "json-auth", origin: "http://localhost:9300" });
    expect(devVarsOf(fromJson.dir).AUTH_LOGIN_URL).toBe("http://localhost:9300/auth/login");
  });

  it("refuses a folder that is no auth worker's project, the auth worker's own name and its ports", () => {
    const { root, auth } = authProject();
    const nowhere = thrown(() =>
      initAppProject(join(root, "x"), join(root, "nothing"), {}, { nodeVersion: "24.11.0" }),
    );
    expect(nowhere.code).toBe("auth_project_not_found");
    expect(thrown(() => initAppProject(join(root, "my-auth-2"), auth, { name: "my-auth" })).code).toBe("invalid_name");
    for (const port of [8787, 8788]) {
      const error = thrown(() => initAppProject(join(root, "y"), auth, { port }, { nodeVersion: "24.11.0" }));
      expect(error.message).toContain(`port ${port} is taken by the auth worker's npm run dev`);
    }
    expect(existsSync(join(root, "x"))).toBe(false);
    expect(existsSync(join(root, "y"))).toBe(false);
  });

  it("adds another app's origin to AUTH_RETURN_ORIGINS in .dev.vars and its example, keeping every other line", () => {
    const { root, auth } = authProject();
    const before = readFileSync(join(auth, ".dev.vars"), "utf8");
    const first = initAppProject(join(root, "my-app"), auth, {}, { nodeVersion: "24.11.0" });
    expect(first.returnOrigins).toEqual([
      { file: ".dev.vars", status: "present" },
      { file: ".dev.vars.example", status: "present" },
    ]);
    expect(readFileSync(join(auth, ".dev.vars"), "utf8")).toBe(before);
    const second = initAppProject(join(root, "shop"), auth, { port: 8790 }, { nodeVersion: "24.11.0" });
    expect(second.returnOrigins).toEqual([
      { file: ".dev.vars", status: "added" },
      { file: ".dev.vars.example", status: "added" },
    ]);
    const after = readFileSync(join(auth, ".dev.vars"), "utf8");
    expect(parseDevVars(after).AUTH_RETURN_ORIGINS).toBe("http://127.0.0.1:8789,http://127.0.0.1:8790");
    expect(parseDevVars(readFileSync(join(auth, ".dev.vars.example"), "utf8")).AUTH_RETURN_ORIGINS).toBe(
      "http://127.0.0.1:8789,http://127.0.0.1:8790",
    );
    expect(after.split("\n").filter((line) => !line.startsWith("AUTH_RETURN_ORIGINS="))).toEqual(
      before.split("\n").filter((line) => !line.startsWith("AUTH_RETURN_ORIGINS=")),
    );
    if (process.platform !== "win32") expect(statSync(join(auth, ".dev.vars")).mode & 0o777).toBe(0o600);
  });

  it("adds the line to a .dev.vars without one, and reports a .dev.vars it cannot change", () => {
    const { root, auth } = authProject();
    const text = readFileSync(join(auth, ".dev.vars"), "utf8").replace(/^AUTH_RETURN_ORIGINS=.*\n/m, "");
    writeFileSync(join(auth, ".dev.vars"), text.trimEnd()); // no final newline either
    expect(initAppProject(join(root, "a"), auth, {}, { nodeVersion: "24.11.0" }).returnOrigins[0]).toEqual({
      file: ".dev.vars",
      status: "added",
    });
    const vars = devVarsOf(auth);
    expect(vars.AUTH_RETURN_ORIGINS).toBe("http://127.0.0.1:8789");
    expect(vars.SESSION_SECRET?.length).toBeGreaterThanOrEqual(32);
    rmSync(join(auth, ".dev.vars"));
    const missing = initAppProject(join(root, "b"), auth, { port: 8790 }, { nodeVersion: "24.11.0" });
    expect(missing.returnOrigins[0]).toEqual({ file: ".dev.vars", status: "failed", reason: "no such file" });
  });

  it("adds devDependency node on a Node older than 22.12, with the auth worker's tool ranges", () => {
    const { root, auth } = authProject();
    const result = initAppProject(join(root, "my-app"), auth, {}, { nodeVersion: "20.19.0" });
    expect(result.nodePackage).toBe(true);
    const app = packageJsonOf(result.dir);
    const own = packageJsonOf(auth);
    expect(app.devDependencies).toEqual({ ...own.devDependencies, node: "^24" });
    expect(app.dependencies).toEqual(own.dependencies);
    expect(app.scripts).toEqual({ dev: "wrangler dev", deploy: "wrangler deploy", typecheck: "tsc --noEmit" });
    expect(app.allowScripts).toEqual({ esbuild: true, workerd: true, sharp: false, node: true });
    expect(readFileSync(join(result.dir, ".npmrc"), "utf8")).toMatch(/^loglevel=error$/m);
  });
});

describe("gatehouse-workers init --app (the executable)", () => {
  it("creates the app, says what became of AUTH_RETURN_ORIGINS and prints the next steps", async () => {
    const cwd = tempDir();
    expect((await runCli(["init", "my-auth"], { cwd })).code).toBe(0);
    const first = await runCli(["init", "--app", "my-app", "--auth", "my-auth"], { cwd });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("created the app worker 'my-app' in my-app, guarded by the auth worker 'my-auth'");
    expect(first.stdout).toContain("AUTH_LOGIN_URL=http://127.0.0.1:8787/auth/login");
    expect(first.stdout).toContain("my-auth/.dev.vars already lists http://127.0.0.1:8789");
    expect(first.stdout).not.toContain("restart");
    expect(first.stdout).toMatch(/cd my-app\n\s+npm install\n\s+npm run dev .*http:\/\/127\.0\.0\.1:8789\//);
    const second = await runCli(["init", "--app", "shop", "--auth", "my-auth", "--port", "8790"], { cwd });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(
      "added http://127.0.0.1:8790 to AUTH_RETURN_ORIGINS in my-auth/.dev.vars and my-auth/.dev.vars.example",
    );
    expect(second.stdout).toContain("restart the auth worker's npm run dev if it is running");
  });

  it("prints the line to add when the auth worker's .dev.vars cannot be changed", async () => {
    const { root, auth } = authProject();
    rmSync(join(auth, ".dev.vars"));
    mkdirSync(join(auth, ".dev.vars")); // unreadable as a file, whoever runs the test (root too)
    const ctx = captureContext(root);
    expect(await runInProcess(["init", "--app", "shop", "--auth", "my-auth", "--port", "8790"], ctx)).toBe(0);
    const out = ctx.stdout.join("\n");
    expect(out).toContain("could not update my-auth/.dev.vars (EISDIR");
    expect(out).toContain("\ngatehouse-workers:   AUTH_RETURN_ORIGINS=http://127.0.0.1:8790\n");
    expect(out).toContain("restart the auth worker's npm run dev");
    // The example still gets it: it is the file a teammate copies.
    expect(parseDevVars(readFileSync(join(auth, ".dev.vars.example"), "utf8")).AUTH_RETURN_ORIGINS).toBe(
      "http://127.0.0.1:8789,http://127.0.0.1:8790",
    );
  });

  it.each([
    [["init", "--app", "a"], /init: an app worker is made with: gatehouse-workers init --app <dir> --auth <auth-dir>/],
    [["init", "--app", "a", "--auth", "b", "extra"], /init: an app worker is made with/],
    [["init", "x", "--auth", "b"], /init: --auth goes with --app/],
    [["init", "x", "--port", "8790"], /init: --port goes with --app/],
    [["init", "--app", "a", "--auth", "b", "--port", "99999"], /--port must be a port number/],
  ])("%j is a usage error in one line, exit code 2", async (argv, message) => {
    const ctx = captureContext(tempDir());
    expect(await runInProcess(argv, ctx)).toBe(2);
    expect(ctx.stderr).toEqual([expect.stringMatching(message)]);
  });
});
