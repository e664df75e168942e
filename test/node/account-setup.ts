/**
 * Node-side globalSetup of the "account" project: builds the live browser bundle with
 * the real `scripts/build-client.mjs` (as `npm run build:client` does) into a temporary
 * directory, with canary secrets in its environment, and provides the output, whether
 * `node --check` parses it, and the names of any secret values found in it (canaries and
 * the values of a local .dev.vars). It never writes into the repository.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  interface ProvidedContext {
    accountBundle: { files: string[]; code: string; headers: string; leaks: string[]; syntaxOk: boolean };
  }
}

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-client-"));
  const canaries: Record<string, string> = {
    SESSION_SECRET: `canary-session-${crypto.randomUUID()}`,
    ADMIN_API_TOKEN: `canary-admin-${crypto.randomUUID()}`,
    IDENTITY_API_KEY: `canary-idp-${crypto.randomUUID()}`,
  };
  await run(process.execPath, [join(root, "scripts/build-client.mjs"), "--outdir", dir], {
    cwd: root,
    env: { ...process.env, ...canaries },
  });
  const files = listFiles(dir).filter((f) => f !== "_headers");
  const code = readFileSync(join(dir, "account/live.js"), "utf8");
  const headers = readFileSync(join(dir, "_headers"), "utf8");
  const secrets = { ...canaries, ...devVars(join(root, ".dev.vars")) };
  const output = [code, headers].join("\n");
  const leaks = Object.entries(secrets)
    .filter(([, value]) => output.includes(value))
    .map(([name]) => name);
  const module = join(dir, "live.check.mjs");
  writeFileSync(module, code);
  const syntaxOk = await run(process.execPath, ["--check", module]).then(
    () => true,
    () => false,
  );
  project.provide("accountBundle", { files, code, headers, leaks, syntaxOk });
  return () => rmSync(dir, { recursive: true, force: true });
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name), base) : [relative(base, join(dir, entry.name))],
  );
}

/** Secret-looking values of a local .dev.vars (8+ characters), by name. */
function devVars(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*"?([^"\n]*)"?\s*$/.exec(line);
    if (match && match[2]!.length >= 8 && !/^https?:/.test(match[2]!)) out[`.dev.vars ${match[1]}`] = match[2]!;
  }
  return out;
}
