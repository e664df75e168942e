/**
 * What `init --app` needs of the auth worker's project: its worker name (the service an app's AUTH
 * binding names) and local origin, read from its wrangler config and `.dev.vars`; and the one line
 * it changes there, `AUTH_RETURN_ORIGINS`, so a sign-in started on the app comes back to it. Never
 * copies, prints or rewrites any other value: the other lines of `.dev.vars` are secrets.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLoopbackHost } from "../../workers/auth/config/rules.ts";
import { LOCAL_IDP_DEFAULTS } from "../local-idp/index.ts";
import { DEFAULT_WORKER_PORT, WORKER_HOST } from "./dev-plan.ts";
import { parseDevVars } from "./dev-vars.ts";
import { CliError } from "./errors.ts";

/** wrangler's own order of preference. */
const CONFIG_FILES = ["wrangler.json", "wrangler.jsonc", "wrangler.toml"] as const;

export interface AuthProject {
  /** The project directory, absolute. */
  dir: string;
  /** The worker's name, from its wrangler config. */
  name: string;
  /** Where its `npm run dev` serves it, e.g. `http://127.0.0.1:8787`. */
  origin: string;
  /** The ports an app must not take: the worker's and its local provider's. */
  ports: number[];
}

/** Reads the auth worker's project in `dir` (shown as `shown`); `auth_project_not_found` without a named worker. */
export function readAuthProject(dir: string, shown: string): AuthProject {
  const config = readWranglerConfig(dir);
  if (!config?.name) {
    throw new CliError(
      "auth_project_not_found",
      `${shown} has no ${CONFIG_FILES.join(", ")} naming a worker: --auth takes the auth worker's project (made by gatehouse-workers init)`,
    );
  }
  const devVars = parseDevVars(readTextOrNothing(join(dir, ".dev.vars")));
  const origin =
    localOrigin(devVars.AUTH_REDIRECT_URL) ?? `http://${WORKER_HOST}:${config.devPort ?? DEFAULT_WORKER_PORT}`;
  const idpPort = Number(devVars.IDENTITY_API_PORT ?? LOCAL_IDP_DEFAULTS.port);
  const ports = [Number(new URL(origin).port || 80), LOCAL_IDP_DEFAULTS.port, idpPort];
  return { dir, name: config.name, origin, ports: [...new Set(ports.filter(Number.isInteger))] };
}

/** The origin of a loopback `http:` AUTH_REDIRECT_URL (where `npm run dev` serves the worker), else null. */
function localOrigin(redirect: string | undefined): string | null {
  if (!redirect || !URL.canParse(redirect)) return null;
  const url = new URL(redirect);
  return url.protocol === "http:" && isLoopbackHost(url.hostname) ? url.origin : null;
}

function readWranglerConfig(dir: string): { name: string | null; devPort: number | null } | null {
  for (const file of CONFIG_FILES) {
    const text = readText(join(dir, file));
    if (text === null) continue;
    return file.endsWith(".toml") ? tomlConfig(text) : jsoncConfig(text);
  }
  return null;
}

/** JSONC as wrangler reads it: comments and trailing commas allowed. */
function jsoncConfig(text: string): { name: string | null; devPort: number | null } {
  const strings = /("(?:[^"\\]|\\.)*")/.source;
  const json = text
    .replace(new RegExp(`${strings}|//[^\\n]*|/\\*[\\s\\S]*?\\*/`, "g"), (_, s: string | undefined) => s ?? "")
    .replace(new RegExp(`${strings}|,(?=\\s*[}\\]])`, "g"), (_, s: string | undefined) => s ?? "");
  let parsed: { name?: unknown; dev?: { port?: unknown } };
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch {
    return { name: null, devPort: null };
  }
  return {
    name: typeof parsed.name === "string" && parsed.name !== "" ? parsed.name : null,
    devPort: typeof parsed.dev?.port === "number" ? parsed.dev.port : null,
  };
}

/** The top-level `name` and `[dev] port` of a wrangler.toml. */
function tomlConfig(text: string): { name: string | null; devPort: number | null } {
  const firstTable = text.search(/^\s*\[/m);
  const top = firstTable === -1 ? text : text.slice(0, firstTable);
  const name = /^\s*name\s*=\s*["']([^"'\n]+)["']/m.exec(top)?.[1] ?? null;
  const dev = text.split(/^(?=\s*\[)/m).find((table) => /^\s*\[dev\]\s*$/m.test(table.split("\n")[0] ?? ""));
  const port = dev === undefined ? undefined : /^\s*port\s*=\s*(\d+)/m.exec(dev)?.[1];
  return { name, devPort: port === undefined ? null : Number(port) };
}

/** The file's text; "" when it cannot be read (addReturnOrigin reports that file later, with its reason). */
function readTextOrNothing(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") return null;
    throw err;
  }
}

/** What became of one file's `AUTH_RETURN_ORIGINS`. */
export type ReturnOriginsUpdate =
  | { file: string; status: "added" | "present" }
  | { file: string; status: "failed"; reason: string };

/**
 * `text` (a .dev.vars) whose AUTH_RETURN_ORIGINS lists `origin`: the last such line (the one wrangler
 * uses) gets it appended, or a commented line is added at the end. Every other line is kept as it is.
 */
export function withReturnOrigin(text: string, origin: string): { text: string; added: boolean } {
  const lines = text.split("\n");
  const pattern = /^\s*(?:export\s+)?AUTH_RETURN_ORIGINS\s*=/;
  const index = lines.findLastIndex((line) => pattern.test(line));
  if (index === -1) {
    const ending = text === "" || text.endsWith("\n") ? "" : "\n";
    const added = [
      "# Origins of your apps that a sign-in may return to (comma-separated); `gatehouse-workers init --app` adds each.",
      `AUTH_RETURN_ORIGINS=${origin}`,
      "",
    ].join("\n");
    return { text: `${text}${ending}${added}`, added: true };
  }
  const current = parseDevVars(lines[index]!).AUTH_RETURN_ORIGINS ?? "";
  const listed = current
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (listed.some((entry) => entry.replace(/\/$/, "") === origin)) return { text, added: false };
  lines[index] = `AUTH_RETURN_ORIGINS=${[...listed, origin].join(",")}`;
  return { text: lines.join("\n"), added: true };
}

/** Adds `origin` to AUTH_RETURN_ORIGINS of `file` in place (its mode kept); a missing or unwritable file is `failed`. */
export function addReturnOrigin(path: string, file: string, origin: string): ReturnOriginsUpdate {
  let text: string | null;
  try {
    text = readText(path);
  } catch (err) {
    return { file, status: "failed", reason: (err as Error).message.split("\n")[0] ?? "unreadable" };
  }
  if (text === null) return { file, status: "failed", reason: "no such file" };
  const next = withReturnOrigin(text, origin);
  if (!next.added) return { file, status: "present" };
  try {
    writeFileSync(path, next.text);
  } catch (err) {
    return { file, status: "failed", reason: (err as Error).message.split("\n")[0] ?? "not writable" };
  }
  return { file, status: "added" };
}
