/**
 * @module
 * Splits a SQL script into its statements exactly as SQLite reads them: a `;`
 * ends a statement only outside string literals ('…'), quoted identifiers
 * ("…", `…`, […]), comments (-- … and /* … *\/) and the `BEGIN … END` body of a
 * `CREATE TRIGGER` (where `CASE … END` nests). Statements keep their text as
 * written (newlines included); comment-only pieces are dropped. Pure, no I/O.
 */

const TRIGGER = /^\s*CREATE\s+(?:TEMP\s+|TEMPORARY\s+)?TRIGGER\b/i;

export function splitSqlStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false;
  let depth = 0; // BEGIN/CASE … END nesting inside a trigger body
  let sawBegin = false;
  let i = 0;
  const n = script.length;
  const finish = (end: number) => {
    const text = script.slice(start, end).trim();
    if (hasCode && text) statements.push(text);
    start = end + 1;
    hasCode = false;
    depth = 0;
    sawBegin = false;
  };
  while (i < n) {
    const ch = script[i]!;
    const next = script[i + 1];
    if (ch === "-" && next === "-") {
      const eol = script.indexOf("\n", i);
      i = eol === -1 ? n : eol + 1;
      continue;
    }
    if (ch === "/" && next === "*") {
      const close = script.indexOf("*/", i + 2);
      i = close === -1 ? n : close + 2;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === "`" || ch === "[") {
      const quote = ch === "[" ? "]" : ch;
      let j = i + 1;
      while (j < n) {
        if (script[j] === quote) {
          if (quote !== "]" && script[j + 1] === quote) {
            j += 2; // doubled quote: an escaped one
            continue;
          }
          break;
        }
        j++;
      }
      hasCode = true;
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$]/.test(script[j]!)) j++;
      const word = script.slice(i, j).toUpperCase();
      hasCode = true;
      if (sawBegin || ((word === "BEGIN" || word === "CASE") && TRIGGER.test(script.slice(start, j)))) {
        if (word === "BEGIN" || (word === "CASE" && sawBegin)) {
          depth++;
          sawBegin = true;
        } else if (word === "END" && depth > 0) depth--;
      }
      i = j;
      continue;
    }
    if (ch === ";") {
      if (!(sawBegin && depth > 0)) finish(i); // inside a trigger body a ; ends a body statement only
      i++;
      continue;
    }
    if (!/\s/.test(ch)) hasCode = true;
    i++;
  }
  finish(n);
  return statements;
}
