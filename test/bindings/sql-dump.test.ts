/**
 * SqlDatabase.dump() against a real local D1 database. Every file is opened by
 * a real SQLite engine (node:sqlite, via the reader service of
 * test/node/bindings-setup.ts): `PRAGMA integrity_check` must pass (every index
 * entry matches its row) and the rows read back must equal D1's, type by type.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { SqlDatabase } from "gatehouse-workers/bindings";
import { beforeEach, describe, expect, it } from "vitest";
import { querySqlite, type ReaderValue, readSqlite } from "./sqlite-reader";

const db = new SqlDatabase(env.ANALYTICS);

/** Drops every user object, so each test starts from an empty database. */
async function reset(): Promise<void> {
  const { results } = await db
    .prepare(
      "SELECT type, name FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite_%'",
    )
    .all<{ type: string; name: string }>();
  for (const { type, name } of results) {
    if (type === "table" || type === "view") {
      await db.run(`DROP ${type.toUpperCase()} IF EXISTS "${name.replaceAll('"', '""')}"`);
    }
  }
}

/** A value in one comparable form: [SQLite type, exact text or number]. */
type Typed = [string, string | number | null];

function fromReader(type: string, value: ReaderValue): Typed {
  if (value === null) return [type, null];
  if (typeof value === "object") {
    if ("int" in value) return [type, value.int];
    if ("real" in value) return [type, Number(value.real)];
    return [type, value.blob.toLowerCase()];
  }
  return [type, type === "integer" ? String(value) : value];
}

/** Every row of `table` as D1 reads it, exactly: integers as text, blobs as hex. */
async function d1Rows(table: string, columns: string[]): Promise<Typed[][]> {
  const select = columns
    .map((c) => {
      const q = `"${c.replaceAll('"', '""')}"`;
      return (
        `typeof(${q}), CASE typeof(${q}) WHEN 'integer' THEN CAST(${q} AS TEXT) WHEN 'blob' THEN lower(hex(${q})) ` +
        `WHEN 'real' THEN CASE WHEN ${q} = 9e999 THEN 'Infinity' WHEN ${q} = -9e999 THEN '-Infinity' ELSE ${q} END ELSE ${q} END`
      );
    })
    .join(", ");
  const raw = await db.prepare(`SELECT ${select} FROM "${table.replaceAll('"', '""')}"`).raw();
  return raw.map((row) => {
    const out: Typed[] = [];
    for (let i = 0; i < row.length; i += 2) {
      const [type, value] = [row[i] as string, row[i + 1] as string | number | null];
      out.push([type, type === "real" && typeof value === "string" ? Number(value) : value]);
    }
    return out;
  });
}

async function expectSameAsD1(file: ArrayBuffer): Promise<void> {
  const report = await readSqlite(file);
  expect(report.integrity).toEqual(["ok"]);
  const master = await db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
    .all();
  expect(report.schema).toEqual(master.results);
  const tables = master.results.filter((r) => r.type === "table").map((r) => r.name as string);
  expect(Object.keys(report.tables).sort()).toEqual([...tables].sort());
  for (const name of tables) {
    const table = report.tables[name]!;
    const fromFile = table.rows.map((row, r) => row.map((value, c) => fromReader(table.types[r]![c]!, value)));
    expect(fromFile, `rows of ${name}`).toEqual(await d1Rows(name, table.columns));
  }
}

describe("SqlDatabase.dump", () => {
  beforeEach(reset);

  it("dumps an empty database to a valid empty file (first: D1 never drops sqlite_sequence)", async () => {
    const file = await db.dump();
    const report = await readSqlite(file);
    expect(report.integrity).toEqual(["ok"]);
    expect(report.schema).toEqual([]);
    expect(report.header).toEqual({ pageSize: 4096, pageCount: 1, encoding: "UTF-8" });
  });

  it("writes every table, index, view, trigger and row into a file SQLite opens and verifies", async () => {
    await db.run(`
      CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE COLLATE NOCASE, score REAL, avatar BLOB, big INTEGER);
      CREATE TABLE kv (k TEXT, v, doubled AS (length(k) * 2) VIRTUAL, upper AS (upper(k)) STORED, PRIMARY KEY (k DESC)) WITHOUT ROWID;
      CREATE INDEX kv_v ON kv (v);
      CREATE INDEX users_lower ON users (lower(email), score DESC) WHERE score IS NOT NULL;
      CREATE INDEX users_big ON users (big COLLATE RTRIM);
      CREATE TABLE legacy (id INTEGER PRIMARY KEY DESC, note TEXT);
      CREATE TABLE "odd ""name"" table" ("a column" TEXT, rowid TEXT);
      CREATE TABLE empty (x);
      CREATE VIEW scored AS SELECT email, score FROM users WHERE score > 1;
      CREATE TRIGGER users_audit AFTER UPDATE ON users BEGIN INSERT INTO legacy (note) VALUES (NEW.email); END;
    `);
    await db.batch([
      db
        .prepare("INSERT INTO users (email, score, avatar, big) VALUES (?, ?, ?, 9223372036854775807)")
        .bind("Ada@Example.com", 2.5, new Uint8Array([0, 255, 16]).buffer),
      db
        .prepare("INSERT INTO users (email, score, avatar, big) VALUES (?, 0.1, x'', -9223372036854775808)")
        .bind("bob@example.com"),
      db
        .prepare("INSERT INTO users (email, score, big) VALUES (?, 9e999, 9007199254740993)")
        .bind("héllo 🌍@example.com"),
      db.prepare(
        "INSERT INTO users (email, score, big) VALUES ('carol@example.com', -9e999, 'text in an integer column')",
      ),
      db.prepare("INSERT INTO users (email, score, big) VALUES ('dan@example.com', NULL, 1e308)"),
      db.prepare("INSERT INTO kv (k, v) VALUES ('a', 1), ('b', 2.5), ('c', x'00ff'), ('', NULL), ('Z', 'text')"),
      db.prepare("INSERT INTO legacy (id, note) VALUES (5, 'five'), (-3, 'minus three')"),
      db.prepare(`INSERT INTO "odd ""name"" table" VALUES ('spaces', 'a column named rowid')`),
      db.prepare("UPDATE users SET score = 3.75 WHERE email = 'bob@example.com'"),
    ]);

    const file = await db.dump();
    expect(file).toBeInstanceOf(ArrayBuffer);
    expect(new TextDecoder().decode(file.slice(0, 15))).toBe("SQLite format 3");
    await expectSameAsD1(file);

    // The indexes answer queries that use them.
    expect(
      await querySqlite(
        file,
        "SELECT email FROM users INDEXED BY sqlite_autoindex_users_1 WHERE email = 'ADA@EXAMPLE.COM'",
      ),
    ).toEqual([["Ada@Example.com"]]);
    expect(
      await querySqlite(
        file,
        "SELECT email FROM users INDEXED BY users_lower WHERE lower(email) > 'b' AND score IS NOT NULL",
      ),
    ).toEqual([["bob@example.com"], ["carol@example.com"], ["héllo 🌍@example.com"]]);
    expect(await querySqlite(file, "SELECT k, upper, doubled FROM kv INDEXED BY kv_v WHERE v = 2.5")).toEqual([
      ["b", "B", 2],
    ]);
    // The WITHOUT ROWID table's own tree is in primary-key order (k DESC).
    expect(await querySqlite(file, "SELECT k, upper FROM kv")).toEqual([
      ["c", "C"],
      ["b", "B"],
      ["a", "A"],
      ["Z", "Z"],
      ["", ""],
    ]);
    // The view, the trigger and AUTOINCREMENT's sequence came along.
    expect(await querySqlite(file, "SELECT email FROM scored ORDER BY email")).toEqual([
      ["Ada@Example.com"],
      ["bob@example.com"],
      ["héllo 🌍@example.com"],
    ]);
    expect(await querySqlite(file, "SELECT name FROM sqlite_schema WHERE type = 'trigger'")).toEqual([["users_audit"]]);
    expect(await querySqlite(file, "SELECT name, seq FROM sqlite_sequence")).toEqual([["users", 5]]);
  });

  it("reads expression and partial indexes whatever their quoting, commas and comments", async () => {
    await db.run(`
      CREATE TABLE "t,(1)" ("a b" TEXT, "x)" TEXT, n INTEGER);
      CREATE INDEX "i(x" ON "t,(1)" ("a b" COLLATE NOCASE DESC, ("x)" || ','), substr("x)", 1, 2) /* a, comment) */, n * -1) WHERE "a b" <> 'x, y)' AND n IS NOT NULL;
    `);
    await db.run(
      `INSERT INTO "t,(1)" VALUES ('Beta', 'q)', 3), ('alpha', 'z', 1), ('x, y)', 'w', 2), ('Gamma', 'r', NULL), ('beta', 'a', 5)`,
    );
    const file = await db.dump();
    await expectSameAsD1(file);
    expect(
      await querySqlite(file, `SELECT n FROM "t,(1)" INDEXED BY "i(x" WHERE "a b" <> 'x, y)' AND n IS NOT NULL`),
    ).toEqual([[5], [3], [1]]);
  });

  it("spans many pages: thousands of rows, overflow pages for large values, deep indexes", async () => {
    await db.run(
      "CREATE TABLE docs (id INTEGER PRIMARY KEY, title TEXT, body TEXT, data BLOB); CREATE INDEX docs_title ON docs (title, body)",
    );
    const statements = [];
    for (let i = 0; i < 3000; i += 500) {
      statements.push(
        db
          .prepare(
            `WITH RECURSIVE n(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 + 499)
             INSERT INTO docs (id, title, body, data)
             SELECT i * 7, printf('title-%05d', (i * 7919) % 3000), CASE WHEN i % 97 = 0 THEN printf('%.*c', 20000 + i, 'x') ELSE 'short' END,
                    CASE WHEN i % 101 = 0 THEN randomblob(70000) ELSE NULL END FROM n`,
          )
          .bind(i),
      );
    }
    await db.batch(statements);
    const file = await db.dump();
    const report = await readSqlite(file);
    expect(report.header.pageCount).toBeGreaterThan(100);
    await expectSameAsD1(file);
    expect(
      await querySqlite(file, "SELECT count(*) FROM docs INDEXED BY docs_title WHERE title >= 'title-01500'"),
    ).toEqual([[1500]]);
    expect(await querySqlite(file, "SELECT length(body) FROM docs WHERE id = 97 * 7 * 3")).toEqual([[20000 + 97 * 3]]);
  });

  it("keeps every value exact, whatever its type (property)", async () => {
    const value = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.double({ noNaN: true }).filter((x) => !Object.is(x, -0)),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.uint8Array({ maxLength: 40 }),
      fc.constant(null),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(value, { minLength: 3, maxLength: 3 }), { maxLength: 12 }), async (rows) => {
        await reset();
        await db.run("CREATE TABLE t (a, b, c); CREATE INDEX t_all ON t (c, b, a)");
        const statements = rows.map((row) => {
          const params: unknown[] = [];
          const literals = row.map((v) => {
            if (typeof v === "bigint") return v.toString();
            if (typeof v === "number") {
              if (!Number.isFinite(v)) return v > 0 ? "9e999" : "-9e999";
              const text = String(v);
              return /[.e]/.test(text) ? text : `${text}.0`;
            }
            params.push(v instanceof Uint8Array ? v.slice().buffer : v);
            return "?";
          });
          return db.prepare(`INSERT INTO t VALUES (${literals.join(", ")})`).bind(...params);
        });
        if (statements.length > 0) await db.batch(statements);
        const report = await readSqlite(await db.dump());
        expect(report.integrity).toEqual(["ok"]);
        const expected = rows.map((row) =>
          row.map((v): Typed => {
            if (v === null) return ["null", null];
            if (typeof v === "bigint") return ["integer", v.toString()];
            if (typeof v === "number") return ["real", v];
            if (typeof v === "string") return ["text", v];
            return ["blob", [...v].map((b) => b.toString(16).padStart(2, "0")).join("")];
          }),
        );
        const table = report.tables.t!;
        const actual = table.rows.map((row, r) => row.map((v, c) => fromReader(table.types[r]![c]!, v)));
        expect(actual).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });
});
