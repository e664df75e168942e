/**
 * Node-side globalSetup of the "account" project: builds the live browser script with the
 * real `scripts/build-live-script.mjs` (as `npm run build:live` does) into a temporary file,
 * with canary secrets in its environment, and provides: the checked-in script the worker
 * serves (workers/auth/account/client/live-script.ts), whether it equals the fresh build
 * (a stale one fails), whether `node --check` parses it, and the names of any secret values
 * found in it (canaries and the values of a local .dev.vars). It never writes into the repository.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  interface ProvidedContext {
    accountBundle: { code: string; fresh: boolean; leaks: string[]; syntaxOk: boolean };
  }
}

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const MODULE = join(root, "workers/auth/account/client/live-script.ts");

/** The string a generated live-script module carries. */
function scriptOf(moduleText: string): string {
  const match = /export const LIVE_SCRIPT: string = (".*");\n/s.exec(moduleText);
  if (!match) throw new Error("live-script.ts has not the generated shape");
  return JSON.parse(match[1]!) as string;
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-client-"));
  const canaries: Record<string, string> = {
    SESSION_SECRET: `canary-session-${crypto.randomUUID()}`,
    ADMIN_API_TOKEN: `canary-admin-${crypto.randomUUID()}`,
    IDENTITY_API_KEY: `canary-idp-${crypto.randomUUID()}`,
  };
  const outfile = join(dir, "live-script.ts");
  await run(process.execPath, [join(root, "scripts/build-live-script.mjs"), "--outfile", outfile], {
    cwd: root,
    env: { ...process.env, ...canaries },
  });
  const built = readFileSync(outfile, "utf8");
  const checkedIn = readFileSync(MODULE, "utf8");
  const code = scriptOf(checkedIn);
  const secrets = { ...canaries, ...devVars(join(root, ".dev.vars")) };
  const leaks = Object.entries(secrets)
    .filter(([, value]) => code.includes(value) || built.includes(value))
    .map(([name]) => name);
  const module = join(dir, "live.check.mjs");
  writeFileSync(module, code);
  const syntaxOk = await run(process.execPath, ["--check", module]).then(
    () => true,
    () => false,
  );
  project.provide("accountBundle", { code, fresh: built === checkedIn, leaks, syntaxOk });
  return () => rmSync(dir, { recursive: true, force: true });
}

/** The secrets of a local .dev.vars (variables named *SECRET*, *TOKEN*, *KEY*; 8+ characters), by name. */
function devVars(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*"?([^"\n]*)"?\s*$/.exec(line);
    // Secrets only (a host name or port in .dev.vars is no secret, and may well appear in the script).
    if (match && /SECRET|TOKEN|KEY/.test(match[1]!) && match[2]!.length >= 8) out[`.dev.vars ${match[1]}`] = match[2]!;
  }
  return out;
}
