// The dispatcher: help, version, unknown commands and bad flags, in-process and through the
// executable; every failure is `gatehouse-workers: <line>` with exit 1 or 2, never a stack trace.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as runInProcess } from "../../scripts/cli/cli.ts";
import { captureContext, REPO_ROOT, runCli, STACK_LINE, tempDir } from "./helpers.ts";

const version = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

describe("runCli", () => {
  it.each([[[]], [["--help"]], [["-h"]], [["help"]], [["init", "--help"]], [["dev-idp", "-h"]]])(
    "%j prints the usage and exits 0",
    async (argv) => {
      const ctx = captureContext(tempDir());
      expect(await runInProcess(argv, ctx)).toBe(0);
      expect(ctx.stdout.join("\n")).toMatch(/^Usage: gatehouse-workers <command>/);
      for (const command of [
        "init <dir>",
        "init --app <dir> --auth <auth-dir> [--name <worker-name>] [--port 8789]",
        "dev [--port 8787]",
        "dev-idp [--port 8788]",
      ]) {
        expect(ctx.stdout.join("\n")).toContain(command);
      }
      expect(ctx.stderr).toEqual([]);
    },
  );

  it("prints the package version", async () => {
    const ctx = captureContext(tempDir());
    expect(await runInProcess(["--version"], ctx)).toBe(0);
    expect(ctx.stdout).toEqual([version]);
  });

  it("answers an unknown command with the usage and exit code 2", async () => {
    const ctx = captureContext(tempDir());
    expect(await runInProcess(["deploy"], ctx)).toBe(2);
    expect(ctx.stderr[0]).toMatch(/^Usage: /);
    expect(ctx.stderr.at(-1)).toBe("gatehouse-workers: unknown command 'deploy'");
    expect(await runInProcess(["constructor"], ctx)).toBe(2);
  });

  it.each([
    [["init"], /^gatehouse-workers: init: expected one directory/],
    [["init", "a", "b"], /^gatehouse-workers: init: expected one directory/],
    [["init", "a", "--frobnicate"], /^gatehouse-workers: init: Unknown option '--frobnicate'/],
    [["dev", "--port"], /^gatehouse-workers: dev: Option '--port <value>' argument missing/],
    [["dev-idp", "--port", "99999"], /^gatehouse-workers: --port must be a port number \(0-65535\), got '99999'/],
  ])("%j is a usage error in one line, exit code 2", async (argv, message) => {
    const ctx = captureContext(tempDir());
    expect(await runInProcess(argv, ctx)).toBe(2);
    expect(ctx.stderr).toHaveLength(1);
    expect(ctx.stderr[0]).toMatch(message);
  });

  it("refuses a project path that runs through a file", async () => {
    const ctx = captureContext(tempDir());
    expect(await runInProcess(["init", join(REPO_ROOT, "package.json", "x")], ctx)).toBe(1);
    expect(ctx.stderr).toEqual([expect.stringMatching(/^gatehouse-workers: .*x is not a directory/)]);
  });

  it("reports a failure it did not expect by its message alone, exit code 1", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".dev.vars")); // a directory where .dev.vars should be: reading it fails
    const ctx = captureContext(dir);
    expect(await runInProcess(["dev"], ctx)).toBe(1);
    expect(ctx.stderr).toEqual([expect.stringMatching(/^gatehouse-workers: unexpected error: EISDIR/)]);
  });
});

describe("the executable", () => {
  it("prints the version and the usage", async () => {
    expect(await runCli(["--version"])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
    const help = await runCli([]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: gatehouse-workers/);
  });

  it("exits 2 on an unknown command, without a stack trace", async () => {
    const result = await runCli(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/gatehouse-workers: unknown command 'frobnicate'\n$/);
    expect(result.stderr).not.toContain(STACK_LINE);
  });

  it("starts with a node shebang", () => {
    expect(readFileSync(join(REPO_ROOT, "scripts/cli/main.ts"), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });
});
