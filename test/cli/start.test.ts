// `npm start` (scripts/start.mjs) while another one runs, issue 19: the second prints one line
// naming the taken ports and the npm command that picks others, and exits 1 without a stack trace.
// The script runs in a copy of the repository's layout in a temp directory (its own .dev.vars, the
// repository's scripts/cli and node_modules linked in), so the repository's files are never touched;
// the running `npm start` is stood for by listeners on both ports.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Finished, freePort, occupiedPort, REPO_ROOT, STACK_LINE, tempDir } from "./helpers.ts";

/** A temp root laid out like the repository for scripts/start.mjs. */
function startRoot(): string {
  const root = tempDir();
  mkdirSync(join(root, "scripts"));
  copyFileSync(join(REPO_ROOT, "scripts/start.mjs"), join(root, "scripts/start.mjs"));
  symlinkSync(join(REPO_ROOT, "scripts/cli"), join(root, "scripts/cli"), "dir");
  symlinkSync(join(REPO_ROOT, "node_modules"), join(root, "node_modules"), "dir");
  copyFileSync(join(REPO_ROOT, ".dev.vars.example"), join(root, ".dev.vars.example"));
  mkdirSync(join(root, "workers/example-consumer"), { recursive: true });
  const consumerExample = "workers/example-consumer/.dev.vars.example";
  copyFileSync(join(REPO_ROOT, consumerExample), join(root, consumerExample));
  return root;
}

function npmStart(root: string, args: readonly string[]): Promise<Finished> {
  const child = spawn(process.execPath, [join(root, "scripts/start.mjs"), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe.skipIf(process.platform === "win32")("npm start while another one runs", () => {
  it("says in one line which ports are taken and how to pick others, exits 1, starts nothing", async () => {
    const root = startRoot();
    const [port, idpPort] = [await occupiedPort(), await occupiedPort()];
    const args = ["--port", String(port), "--idp-port", String(idpPort)];
    const first = await npmStart(root, args);
    expect(first.stdout).toContain("gatehouse: created .dev.vars with fresh local secrets");
    expect(first.code).toBe(1);

    // As the second `npm start` of a developer whose .dev.vars exists: nothing but the one line.
    const second = await npmStart(root, args);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe("");
    expect(second.stderr).toBe(
      `gatehouse-workers: ports ${port} and ${idpPort} are already in use (is another npm start running? stop it, or pick others: npm start -- --port 9000 --idp-port 9001)\n`,
    );
    expect(second.stderr).not.toContain(STACK_LINE);
    // Nothing started: the provider's directory file was never created.
    expect(existsSync(join(root, ".wrangler"))).toBe(false);
    expect(readFileSync(join(root, ".dev.vars"), "utf8")).toMatch(/^SESSION_SECRET=\S{43}$/m);
  });

  it("names only the worker's port when the provider's is free", async () => {
    const root = startRoot();
    const [port, idpPort] = [await occupiedPort(), await freePort()];
    const result = await npmStart(root, ["--port", String(port), "--idp-port", String(idpPort)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `gatehouse-workers: port ${port} is already in use (is another npm start running? stop it, or pick another: npm start -- --port 9000 --idp-port ${idpPort})\n`,
    );
  });
});
