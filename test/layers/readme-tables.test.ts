/**
 * README's error tables are promises: every row (a code and its status) must be reached by a test
 * against the running workers (issue 15). This reads the two tables of README's "Errors" section and
 * looks for each row in the title of a test of the file that the section names for it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./imports.ts";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const errors = readme.slice(readme.indexOf("\n## Errors"), readme.indexOf("\n## ", readme.indexOf("\n## Errors") + 1));

/** The `| code | status | when |` rows of the table that follows `heading` in the Errors section. */
function rows(heading: string): { code: string; status: string }[] {
  const start = errors.indexOf(heading);
  expect(start, `README's Errors section has "${heading}"`).toBeGreaterThan(-1);
  const table = errors.slice(start).split("\n\n")[1] ?? "";
  return [...table.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => ({
    code: code!,
    status: status!,
  }));
}

/** True when a test title (one string literal) in `file` names `code` and then `status`. */
function tested(file: string, code: string, status: string): boolean {
  const text = readFileSync(join(ROOT, file), "utf8");
  return new RegExp(`["'\`][^"'\`\\n]*\\b${code}\\b[^"'\`\\n]*\\b${status}\\b[^"'\`\\n]*["'\`]`).test(text);
}

describe("README's error tables", () => {
  it.each([
    ["**The auth worker**", "test/security/error-table.test.ts"],
    ["**A consuming worker**", "test/consumer/error-table.test.ts"],
  ])("every row of %s is reached by a test in %s", (heading, file) => {
    const table = rows(heading);
    expect(table.length).toBeGreaterThan(5);
    expect(errors).toContain(file);
    expect(table.filter((row) => !tested(file, row.code, row.status))).toEqual([]);
  });

  it("the check itself sees a row without a test", () => {
    expect(tested("test/security/error-table.test.ts", "rate_limited", "429")).toBe(true);
    expect(tested("test/security/error-table.test.ts", "rate_limited", "418")).toBe(false);
    expect(tested("test/security/error-table.test.ts", "no_such_code", "400")).toBe(false);
  });
});
