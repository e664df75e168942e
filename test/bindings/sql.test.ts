/** SqlDatabase over a real local D1 database: run, prepare, batch, raw. */
import { env } from "cloudflare:workers";
import { SqlDatabase } from "gatehouse-workers/bindings";
import { beforeAll, describe, expect, it } from "vitest";

describe("SqlDatabase", () => {
  const db = new SqlDatabase(env.DB);

  beforeAll(async () => {
    await db.run("DROP TABLE IF EXISTS notes;\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);");
  });

  it("exposes the raw binding", () => {
    expect(db.raw).toBe(env.DB);
  });

  it("run executes raw SQL and returns execution metadata", async () => {
    const result = await db.run("CREATE TABLE IF NOT EXISTS scratch (a);\nDROP TABLE scratch;");
    expect(result.count).toBe(2);
    expect(typeof result.duration).toBe("number");
  });

  it("prepare binds positional parameters; all, first and run work", async () => {
    const insert = await db.prepare("INSERT INTO notes (body) VALUES (?)").bind("first").run();
    expect(insert.success).toBe(true);
    expect(insert.meta.changes).toBe(1);
    await db.prepare("INSERT INTO notes (body) VALUES (?1), (?2)").bind("second", "third").run();

    const all = await db.prepare("SELECT body FROM notes WHERE id > ? ORDER BY id").bind(1).all<{ body: string }>();
    expect(all.results.map((r) => r.body)).toEqual(["second", "third"]);
    expect(await db.prepare("SELECT body FROM notes WHERE id = ?").bind(1).first("body")).toBe("first");
    expect(await db.prepare("SELECT body FROM notes WHERE id = ?").bind(99).first()).toBeNull();
  });

  it("batch runs several statements in one round-trip, as one transaction", async () => {
    const results = await db.batch<{ n: number }>([
      db.prepare("INSERT INTO notes (body) VALUES (?)").bind("batched"),
      db.prepare("SELECT count(*) AS n FROM notes"),
    ]);
    expect(results).toHaveLength(2);
    expect(results[1]?.results[0]?.n).toBe(4);

    // A failing statement rolls the whole batch back.
    await expect(
      db.batch([
        db.prepare("INSERT INTO notes (body) VALUES ('lost')"),
        db.prepare("INSERT INTO notes (body) VALUES (NULL)"),
      ]),
    ).rejects.toThrow(/NOT NULL/);
    expect(await db.prepare("SELECT count(*) AS n FROM notes WHERE body = 'lost'").first("n")).toBe(0);
  });
});

describe("SqlDatabase.run: a script exactly as written (issue 15)", () => {
  const db = new SqlDatabase(env.DB);

  it("runs multi-line statements with literals, comments, quoted identifiers and a trigger body", async () => {
    const script = `
      -- a comment; with a semicolon
      DROP TABLE IF EXISTS "audit log";
      DROP TABLE IF EXISTS [people];
      CREATE TABLE [people] (
        id INTEGER PRIMARY KEY,
        "full name" TEXT NOT NULL, /* a block comment; still one statement */
        \`motto\` TEXT
      );
      CREATE TABLE "audit log" (entry TEXT NOT NULL);
      CREATE TRIGGER people_audit AFTER INSERT ON people
      BEGIN
        INSERT INTO "audit log" (entry) VALUES ('added;' || NEW."full name");
        INSERT INTO "audit log" (entry) VALUES (CASE WHEN NEW.motto IS NULL THEN 'no motto' ELSE 'motto' END);
      END;
      INSERT INTO people ("full name", motto) VALUES ('Ada ''Countess'' Lovelace', 'line one
line two; still the literal');
    `;
    const result = await db.run(script);
    expect(result.count).toBe(6);
    const person = await db
      .prepare('SELECT "full name" AS name, motto FROM people')
      .first<{ name: string; motto: string }>();
    expect(person).toEqual({ name: "Ada 'Countess' Lovelace", motto: "line one\nline two; still the literal" });
    const audit = await db.prepare('SELECT entry FROM "audit log" ORDER BY rowid').all<{ entry: string }>();
    expect(audit.results.map((r) => r.entry)).toEqual(["added;Ada 'Countess' Lovelace", "motto"]);
  });

  it("is one transaction: a failing statement leaves nothing behind", async () => {
    await db.run("DROP TABLE IF EXISTS tx_probe;");
    await expect(db.run("CREATE TABLE tx_probe (a);\nINSERT INTO nowhere VALUES (1);")).rejects.toThrow();
    expect(await db.prepare("SELECT name FROM sqlite_master WHERE name = 'tx_probe'").first()).toBeNull();
  });

  it("an empty or comment-only script runs nothing", async () => {
    expect(await db.run("  -- nothing\n /* here */ ")).toEqual({ count: 0, duration: 0 });
  });
});
