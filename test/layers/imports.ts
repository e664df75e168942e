/**
 * The import graph of the three source layers (client-sdk → durable-objects → workers), read from
 * the files as text: static imports and re-exports, `import type`, and dynamic `import("…")`.
 * Package self-imports resolve to their entry files (`gatehouse-workers` → client-sdk/index.ts, …).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { PACKAGE_NAME, SOURCE_ENTRIES } from "../../tooling/source/aliases.ts";

export const ROOT = resolve(import.meta.dirname, "../..");
export const LAYERS = ["client-sdk", "durable-objects", "workers"] as const;
export type Layer = (typeof LAYERS)[number];

/** `gatehouse-workers`, `gatehouse-workers/auth`, … → their entry files. */
const SELF: Record<string, string> = Object.fromEntries(
  Object.entries(SOURCE_ENTRIES).map(([subpath, file]) => [`${PACKAGE_NAME}${subpath.slice(1)}`, file]),
);

// An import/export clause never holds `=`: `export const X = 'import … from "…"'` is a string, not an import.
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^;=]*?\sfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.ts$/.test(name) && !/\.d\.ts$/.test(name)) out.push(path);
  }
  return out;
}

function resolveImport(from: string, specifier: string): string | null {
  if (SELF[specifier]) return SELF[specifier];
  if (!specifier.startsWith(".")) return null; // a package: outside the graph
  const base = relative(ROOT, resolve(ROOT, dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(join(ROOT, candidate)) && statSync(join(ROOT, candidate)).isFile()) return candidate;
  }
  return null;
}

/**
 * The rooms of each layer, ground first: a file may import its own room and the rooms before it,
 * never one after it (a type-only import counts: the type moves down). A room is a folder or a
 * single file at the top of a layer; under workers/, the folders of the auth worker.
 */
export const ROOMS: Record<Layer, readonly string[]> = {
  "client-sdk": [
    "core",
    "bindings",
    "rate-limit",
    "html",
    "versioned-kv",
    "registration",
    "protocol",
    "auth-context",
    "security-events",
    "auth-service",
    "app-connections",
    "index.ts",
    "entries",
  ],
  "durable-objects": [
    "clock.ts",
    "rate-limiter",
    "container",
    "ssf-streams",
    "user-sessions",
    "organization-sessions",
    "index.ts",
  ],
  workers: [
    "auth/types",
    "auth/ids.ts",
    "auth/errors",
    "auth/crypto",
    "auth/cookies",
    "auth/location",
    "auth/flow",
    "auth/pages",
    "auth/config",
    "auth/identity",
    "auth/org",
    "auth/session",
    "auth/limits",
    "auth/middleware",
    "auth/routes",
    "auth/provider.ts",
    "auth/account",
    "auth/admin",
    "auth/live",
    "auth/webhooks",
    "auth/ssf/transmitter",
    "auth/ssf/receiver",
    "auth/app",
    "auth/rpc",
    "auth/factory",
    "auth/index.ts",
    "auth/worker.ts",
    "auth/worker-apps.ts",
    "entries",
    "example-consumer",
  ],
};

/** The room a file lives in (see ROOMS), or null when it is in none. */
export function roomOf(file: string): string | null {
  const layer = layerOf(file);
  if (!layer) return null;
  const rest = file.slice(layer.length + 1);
  return ROOMS[layer].find((room) => rest === room || rest.startsWith(`${room}/`)) ?? null;
}

export function layerOf(file: string): Layer | null {
  return LAYERS.find((l) => file === l || file.startsWith(`${l}/`)) ?? null;
}

/** file → the files it imports (only files of the three layers). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const layer of LAYERS) {
    for (const file of sourceFiles(layer)) {
      const text = readFileSync(join(ROOT, file), "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
      const targets = new Set<string>();
      for (const m of text.matchAll(SPECIFIER)) {
        const target = resolveImport(file, m[1] ?? m[2] ?? m[3]!);
        if (target && layerOf(target)) targets.add(target);
      }
      graph.set(file, [...targets]);
    }
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): the cycles. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}
