/**
 * PooledDbClient with postgresDriver (gatehouse-workers/hyperdrive) over a real local Hyperdrive binding: miniflare's Hyperdrive
 * proxies to a Postgres wire server (PGlite behind pglite-socket, started by
 * test/node/bindings-setup.ts). PG_DOWN points at a port nothing listens on.
 * The server takes one connection at a time, so these tests run in sequence.
 */
import { env } from "cloudflare:workers";
import { Application, BindingError, PlatformServiceProvider, PooledDbClient } from "gatehouse-workers";
import { postgresDriver } from "gatehouse-workers/hyperdrive";
import { beforeAll, describe, expect, it } from "vitest";

const PASSWORD = "pg-secret-do-not-leak";

async function failure(promise: Promise<unknown>): Promise<BindingError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BindingError);
  return err as BindingError;
}

function expectNoSecrets(err: BindingError): void {
  for (const text of [err.message, String((err.cause as Error | undefined)?.message ?? "")]) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(env.PG.connectionString);
    expect(text).not.toContain(env.PG_DOWN.connectionString);
  }
}

describe("PooledDbClient", () => {
  const pg = new PooledDbClient(env.PG, { driver: postgresDriver });

  beforeAll(async () => {
    await pg.query("DROP TABLE IF EXISTS accounts");
    await pg.query(
      "CREATE TABLE accounts (id serial PRIMARY KEY, email text UNIQUE NOT NULL, balance numeric, tags text, active boolean)",
    );
  });

  it("exposes the raw binding", () => {
    expect(pg.raw).toBe(env.PG);
  });

  it("runs parameterized queries and returns { results }", async () => {
    const inserted = await pg.query<{ id: number; email: string }>(
      "INSERT INTO accounts (email, balance, tags, active) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8) RETURNING id, email",
      ["ada@example.com", "12.50", "admin", true, "bob@example.com", "0", null, false],
    );
    expect(inserted.results.map((r) => r.email)).toEqual(["ada@example.com", "bob@example.com"]);
    expect(Array.isArray(inserted.results)).toBe(true);

    const { results } = await pg.query("SELECT email, balance, tags, active FROM accounts WHERE email = $1", [
      "ada@example.com",
    ]);
    expect(results).toEqual([{ email: "ada@example.com", balance: "12.50", tags: "admin", active: true }]);
  });

  it("returns an empty list when nothing matches, and works without params", async () => {
    expect(await pg.query("SELECT * FROM accounts WHERE email = $1", ["nobody@example.com"])).toEqual({ results: [] });
    expect((await pg.query("SELECT 1 + 1 AS two")).results).toEqual([{ two: 2 }]);
  });

  it("keeps injected text as data", async () => {
    const evil = "x'); DROP TABLE accounts; --";
    await pg.query("INSERT INTO accounts (email) VALUES ($1)", [evil]);
    const { results } = await pg.query<{ n: string }>("SELECT count(*) AS n FROM accounts WHERE email = $1", [evil]);
    expect(results[0]?.n).toBe("1");
  });

  it("surfaces Postgres errors with their SQLSTATE and message", async () => {
    const missing = await failure(pg.query("SELECT * FROM no_such_table"));
    expect(missing.code).toBe("query_failed");
    expect(missing.sqlState).toBe("42P01");
    expect(missing.message).toBe('Postgres error 42P01: relation "no_such_table" does not exist');
    expectNoSecrets(missing);

    const syntax = await failure(pg.query("SELEC 1"));
    expect(syntax.sqlState).toBe("42601");
    expect(syntax.message).toContain("syntax error");

    const duplicate = await failure(pg.query("INSERT INTO accounts (email) VALUES ($1)", ["ada@example.com"]));
    expect(duplicate.sqlState).toBe("23505");
    expect(duplicate.message).toContain("accounts_email_key");
  });

  it("still works after an error (the connection was closed properly)", async () => {
    await failure(pg.query("SELECT * FROM no_such_table"));
    expect((await pg.query("SELECT count(*)::int AS n FROM accounts")).results[0]).toEqual({ n: 3 });
  });

  it("reports an unreachable database without the connection string or password", async () => {
    const err = await failure(new PooledDbClient(env.PG_DOWN, { driver: postgresDriver }).query("SELECT 1"));
    expect(err.code).toBe("connection_failed");
    expect(err.status).toBe(500);
    expect(err.message).toMatch(/^PooledDbClient: could not reach the database through Hyperdrive/);
    expectNoSecrets(err);
  });

  it("rejects bad arguments before connecting", async () => {
    expect((await failure(pg.query(""))).code).toBe("invalid_argument");
    expect((await failure(pg.query("SELECT $1", "x" as unknown as unknown[]))).code).toBe("invalid_argument");
  });

  it("without a driver, names the import that supplies one (and never connects)", async () => {
    const err = await failure(new PooledDbClient(env.PG).query("SELECT 1"));
    expect(err.code).toBe("driver_missing");
    expect(err.message).toContain('import { postgresDriver } from "gatehouse-workers/hyperdrive"');
    const registered = Application.create({ PG: env.PG }, { providers: [new PlatformServiceProvider()] });
    expect((await failure(registered.container.resolve(PooledDbClient).query("SELECT 1"))).code).toBe("driver_missing");
  });

  it("gives the registration's PooledDbClient the driver passed to PlatformServiceProvider", async () => {
    const app = Application.create(
      { PG: env.PG },
      { providers: [new PlatformServiceProvider({ pooledDbDriver: postgresDriver })] },
    );
    expect((await app.container.resolve(PooledDbClient).query("SELECT 40 + 2 AS n")).results).toEqual([{ n: 42 }]);
  });
});
