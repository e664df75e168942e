/**
 * Reads `.dev.vars` (dotenv syntax, as wrangler does): `KEY=value` lines, `#` comments, optional
 * quotes, `export ` prefixes. Returns the variables by name; never prints a value, since most of
 * them are secrets.
 */
import { readFileSync } from "node:fs";

/** The variables of a `.dev.vars` text. A later line wins over an earlier one of the same name. */
export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(rawLine);
    if (!match) continue;
    vars[match[1]!] = unquote(match[2]!);
  }
  return vars;
}

function unquote(value: string): string {
  const quote = value[0];
  if ((quote === '"' || quote === "'" || quote === "`") && value.length >= 2 && value.endsWith(quote)) {
    const inner = value.slice(1, -1);
    return quote === '"' ? inner.replace(/\\n/g, "\n") : inner;
  }
  // An unquoted value ends at ` #` (a trailing comment), as in dotenv.
  const comment = value.search(/\s#/);
  return comment === -1 ? value : value.slice(0, comment).trimEnd();
}

/** The variables of the file at `path`, or null when there is no such file. */
export function readDevVars(path: string): Record<string, string> | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") return null;
    throw err;
  }
  return parseDevVars(text);
}
