// `gatehouse-workers init`: the exact files, fresh secrets that pass the worker's own rules (and the
// CLI's check of the security-events secret, which those rules do not cover), a private .dev.vars, refusal of a non-empty directory, never an overwrite, the worker name, the
// pinned gatehouse-workers version and the `node` devDependency on an old Node.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDevVars } from "../../scripts/cli/dev-vars.ts";
import { CliError } from "../../scripts/cli/errors.ts";
import { initProject } from "../../scripts/cli/init.ts";
import { checkAuthEnvironment, SECRET_VARIABLES, secretProblem } from "../../workers/auth/config/rules.ts";
import { REPO_ROOT, runCli, STACK_LINE, tempDir } from "./helpers.ts";

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
  });
});

describe("gatehouse-workers init (the executable)", () => {
  it("creates the project and prints the next steps", async () => {
    const cwd = tempDir();
    const result = await runCli(["init", "my-auth", "--name", "edge-auth"], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("created the auth worker 'edge-auth' in my-auth");
    expect(result.stdout).toMatch(/cd my-auth\n\s+npm install\n\s+npm run dev/);
    expect(listFiles(join(cwd, "my-auth"))).toEqual(FILES);
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
