/** The SQL script splitter behind SqlDatabase.run (pure): where statements end, and where they do not. */
import { describe, expect, it } from "vitest";
import { splitSqlStatements } from "../../client-sdk/bindings/sql/split";

describe("splitSqlStatements", () => {
  it.each([
    ["a; b;", ["a", "b"]],
    ["SELECT ';' ; SELECT 2", ["SELECT ';'", "SELECT 2"]],
    ["SELECT 'it''s;'; x", ["SELECT 'it''s;'", "x"]],
    ['SELECT "a;b" FROM t; y', ['SELECT "a;b" FROM t', "y"]],
    ["SELECT [a;b]; z", ["SELECT [a;b]", "z"]],
    ["SELECT `a;b`; z", ["SELECT `a;b`", "z"]],
    ["-- c; c\nSELECT 1; /* ; */ SELECT 2;", ["-- c; c\nSELECT 1", "/* ; */ SELECT 2"]],
    ["-- only a comment;\n", []],
    [
      "CREATE TRIGGER t AFTER INSERT ON x BEGIN UPDATE y SET a = CASE WHEN 1 THEN 2 END; DELETE FROM z; END; SELECT 3",
      [
        "CREATE TRIGGER t AFTER INSERT ON x BEGIN UPDATE y SET a = CASE WHEN 1 THEN 2 END; DELETE FROM z; END",
        "SELECT 3",
      ],
    ],
    ["BEGIN; SELECT 1; COMMIT;", ["BEGIN", "SELECT 1", "COMMIT"]],
  ])("%j", (script, statements) => {
    expect(splitSqlStatements(script)).toEqual(statements);
  });
});
