/**
 * STORAGE.md lists everything Gatehouse keeps (issue 28). This reads the code as text and fails when
 * STORAGE.md misses:
 * - a Durable Object table: every `CREATE TABLE` in a `.ts` file under `durable-objects/<folder>/`,
 *   and every column added later (`["table", "column", "TYPE"]` tuples, `ADDED_COLUMNS`), must have a
 *   row starting with `` | `table` `` in the section whose heading names `durable-objects/<folder>/`,
 *   and that row must name every column in backticks;
 * - a key prefix, in backticks, for each of:
 *   1. a string constant whose name ends in `PREFIX` (exported or not) in client-sdk, durable-objects
 *      or workers, except the few that are not storage (`NOT_STORAGE`);
 *   2. the literal start of a `prefix:` option (the rate limiters' namespaces: `rl:svc:`, `rl:auth:…`);
 *   3. the literal start of a template-literal key given to a KV call (`.put(\`content:${…}\`)`);
 *   4. `BUILT_ELSEWHERE`: prefixes built in helpers the rules above cannot see; each must still be in
 *      the code, so the list cannot outlive what it names.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LAYERS, ROOT } from "./imports.ts";

/** `*PREFIX` constants that are not storage keys, and why. */
const NOT_STORAGE: Record<string, string> = {
  "gatehouse-ticket.": "a WebSocket subprotocol carrying a live ticket, never stored",
  "gh:s:": "a WebSocket tag an app's holder gives the connections of a session (SESSION_TAG_PREFIX), never stored",
};

/** Key prefixes built inside helper functions (rules 1–3 do not see them). */
const BUILT_ELSEWHERE: { prefix: string; file: string }[] = [
  { prefix: "ptr:", file: "client-sdk/versioned-kv/store.ts" },
  { prefix: "content:", file: "client-sdk/versioned-kv/store.ts" },
  { prefix: "sha256:", file: "client-sdk/rate-limit/key.ts" },
];

const storage = readFileSync(join(ROOT, "STORAGE.md"), "utf8");

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...tsFiles(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** Splits `text` on commas outside parentheses. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

const CONSTRAINT = /^(PRIMARY|UNIQUE|CHECK|FOREIGN|CONSTRAINT)\b/i;

/** Tables and their columns in SQL text: every `CREATE TABLE` and every `["table", "column", "TYPE"]`. */
function tablesIn(source: string): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  for (const match of source.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?["`]?(\w+)["`]?\s*\(/gi)) {
    let depth = 1;
    let i = match.index + match[0].length;
    const bodyStart = i;
    while (i < source.length && depth > 0) {
      if (source[i] === "(") depth++;
      else if (source[i] === ")") depth--;
      i++;
    }
    const columns = topLevelParts(source.slice(bodyStart, i - 1))
      .filter((part) => !CONSTRAINT.test(part))
      .map((part) => part.split(/\s+/)[0]!.replace(/["`]/g, ""));
    tables.set(match[1]!, [...(tables.get(match[1]!) ?? []), ...columns]);
  }
  for (const [, table, column] of source.matchAll(/\[\s*"(\w+)",\s*"(\w+)",\s*"(?:TEXT|INTEGER|REAL|BLOB)"\s*\]/g)) {
    tables.set(table!, [...(tables.get(table!) ?? []), column!]);
  }
  return tables;
}

/** The section of STORAGE.md (heading to next heading) whose heading names `folder`. */
function sectionFor(folder: string): string | null {
  const sections = storage.split(/^(?=#{2,3} )/m);
  return sections.find((section) => section.split("\n")[0]!.includes(folder)) ?? null;
}

/** What `section` leaves out of `table`: the whole table (its row) or some columns. */
function missingFrom(section: string, table: string, columns: string[]): string[] {
  const row = section.split("\n").find((line) => line.startsWith(`| \`${table}\``));
  if (!row) return [`table ${table}`];
  return columns.filter((column) => !row.includes(`\`${column}\``)).map((column) => `${table}.${column}`);
}

/** Every Durable Object folder with SQL tables, and its tables. */
function objectTables(): Map<string, Map<string, string[]>> {
  const byFolder = new Map<string, Map<string, string[]>>();
  for (const file of tsFiles("durable-objects")) {
    const found = tablesIn(read(file));
    if (found.size === 0) continue;
    const folder = `${file.split("/").slice(0, 2).join("/")}/`;
    const tables = byFolder.get(folder) ?? new Map<string, string[]>();
    for (const [table, columns] of found) tables.set(table, [...(tables.get(table) ?? []), ...columns]);
    byFolder.set(folder, tables);
  }
  return byFolder;
}

/** The literal start of each key prefix the code builds (rules 1–3 of the header). */
function prefixesIn(source: string): string[] {
  const found: string[] = [];
  for (const [, value] of source.matchAll(/\bconst\s+\w*PREFIX\s*(?::\s*\w+\s*)?=\s*["'`]([^"'`$]+)["'`]/g)) {
    found.push(value!);
  }
  for (const [, value] of source.matchAll(/\bprefix:\s*["'`]([^"'`$]+)/g)) found.push(value!);
  for (const [, value] of source.matchAll(/\.(?:put|get|getWithMetadata|delete|list)\(\s*`([^`$]+)\$\{/g)) {
    found.push(value!);
  }
  return found;
}

/** True when STORAGE.md has a code span that starts with `prefix`. */
const documented = (prefix: string) => storage.includes(`\`${prefix}`);

describe("STORAGE.md", () => {
  it("has a row, with every column, for each Durable Object table", () => {
    const byFolder = objectTables();
    expect([...byFolder.keys()].sort()).toEqual(
      expect.arrayContaining(["durable-objects/organization-sessions/", "durable-objects/user-sessions/"]),
    );
    const missing: string[] = [];
    for (const [folder, tables] of byFolder) {
      const section = sectionFor(folder);
      if (!section) {
        missing.push(`a section whose heading names ${folder}`);
        continue;
      }
      for (const [table, columns] of tables) missing.push(...missingFrom(section, table, columns));
    }
    expect(missing).toEqual([]);
  });

  it("names every KV key prefix the code builds", () => {
    const prefixes = new Set<string>();
    for (const layer of LAYERS)
      for (const file of tsFiles(layer)) for (const p of prefixesIn(read(file))) prefixes.add(p);
    for (const { prefix, file } of BUILT_ELSEWHERE) {
      expect(read(file), `${prefix} is still built in ${file}`).toContain(`${prefix}\${`);
      prefixes.add(prefix);
    }
    expect(prefixes).toContain("sess:");
    expect(prefixes).toContain("rl:svc:");
    expect(prefixes).toContain("console:log:");
    const missing = [...prefixes].filter((p) => !(p in NOT_STORAGE) && !documented(p));
    expect(missing).toEqual([]);
  });

  it("the check itself sees a missing table, column or prefix", () => {
    const sql = `CREATE TABLE IF NOT EXISTS demo (
      id TEXT PRIMARY KEY, body TEXT DEFAULT (lower('x')), n INTEGER NOT NULL, PRIMARY KEY (id, n)
    ); ["demo", "later", "INTEGER"]`;
    expect(tablesIn(sql)).toEqual(new Map([["demo", ["id", "body", "n", "later"]]]));
    expect(missingFrom("| `demo` | `id`, `body`, `n` |", "demo", ["id", "body", "n", "later"])).toEqual(["demo.later"]);
    expect(missingFrom("| `other` | `id` |", "demo", ["id"])).toEqual(["table demo"]);
    // Built from parts: a "$" next to a "{" here would be an interpolation (or a lint warning).
    const [tick, open] = ["`", "$" + "{"];
    const source = `export const X_PREFIX = "x:"; const PREFIX = "y:"; new L({ prefix: ${tick}rl:z:${open}f}:${tick} }); kv.put(${tick}w:${open}id}${tick}, v)`;
    expect(prefixesIn(source)).toEqual(["x:", "y:", "rl:z:", "w:"]);
    expect(documented("sess:")).toBe(true);
    expect(documented("nowhere:")).toBe(false);
  });
});
