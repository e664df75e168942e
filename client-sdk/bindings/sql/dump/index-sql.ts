/**
 * @module
 * Reads the column terms and the WHERE clause out of a `CREATE INDEX`
 * statement, for indexes on expressions and partial indexes (which
 * `PRAGMA index_xinfo` cannot describe). A small tokenizer that respects
 * quotes, brackets and comments; it never evaluates or rewrites the SQL.
 */

export interface IndexDefinition {
  /** Each indexed term as written, without a trailing ASC/DESC. */
  terms: string[];
  /** The partial-index predicate, or null. */
  where: string | null;
}

/** Index of the character after the quoted/commented span starting at `i`, or `i` if none starts there. */
function skip(sql: string, i: number): number {
  const c = sql[i];
  const close: Record<string, string> = { "'": "'", '"': '"', "`": "`", "[": "]" };
  if (c !== undefined && close[c]) {
    const end = close[c];
    let j = i + 1;
    while (j < sql.length) {
      if (sql[j] === end) {
        // A doubled quote is an escaped quote ('' "" ``), brackets have no escape.
        if (end !== "]" && sql[j + 1] === end) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
    return sql.length;
  }
  if (c === "-" && sql[i + 1] === "-") {
    const nl = sql.indexOf("\n", i);
    return nl === -1 ? sql.length : nl + 1;
  }
  if (c === "/" && sql[i + 1] === "*") {
    const end = sql.indexOf("*/", i + 2);
    return end === -1 ? sql.length : end + 2;
  }
  return i;
}

/** Parses `CREATE [UNIQUE] INDEX … ON table (term, …) [WHERE expr]`. */
export function parseCreateIndex(sql: string): IndexDefinition {
  let depth = 0;
  let start = -1;
  let termStart = -1;
  const terms: string[] = [];
  let i = 0;
  while (i < sql.length) {
    const next = skip(sql, i);
    if (next !== i) {
      i = next;
      continue;
    }
    const c = sql[i];
    if (c === "(") {
      depth++;
      if (depth === 1 && start === -1) {
        start = i;
        termStart = i + 1;
      }
    } else if (c === ")") {
      depth--;
      if (depth === 0 && start !== -1) {
        terms.push(sql.slice(termStart, i));
        const rest = sql.slice(i + 1);
        return { terms: terms.map(cleanTerm), where: whereClause(rest) };
      }
    } else if (c === "," && depth === 1 && start !== -1) {
      terms.push(sql.slice(termStart, i));
      termStart = i + 1;
    }
    i++;
  }
  throw new SyntaxError(`not a CREATE INDEX statement with a column list: ${sql.slice(0, 80)}`);
}

function cleanTerm(term: string): string {
  return term.trim().replace(/\s+(ASC|DESC)$/i, "");
}

function whereClause(rest: string): string | null {
  const match = /^\s*WHERE\b/i.exec(rest);
  if (!match) return null;
  return rest.slice(match[0].length).trim().replace(/;\s*$/, "");
}
