/**
 * PooledDbClient over a real local Hyperdrive binding: miniflare's Hyperdrive proxies to a Postgres
 * wire server (PGlite behind pglite-socket, started by test/node/bindings-setup.ts). PG_DOWN points
 * at a port nothing listens on. Every behaviour runs with both drivers: the built-in one (the spec's
 * `new PooledDbClient(binding)`, and what PlatformServiceProvider registers) and postgresDriver
 * (postgres.js, gatehouse-workers/hyperdrive), which is also the oracle the built-in one's values are
 * compared with. The server takes one connection at a time, so these tests run in sequence, in
 * this one file (the spec rows of PooledDbClient included).
 */
import { env } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import { BindingError, PlatformServiceProvider, PooledDbClient, type PooledDbDriver } from "gatehouse-workers/bindings";
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

const DRIVERS: [string, PooledDbDriver | undefined][] = [
  ["the built-in driver", undefined],
  ["postgresDriver", postgresDriver],
];

describe.each(DRIVERS)("PooledDbClient with %s", (_name, driver) => {
  const options = driver ? { driver } : {};
  const pg = new PooledDbClient(env.PG, options);

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
    const err = await failure(new PooledDbClient(env.PG_DOWN, options).query("SELECT 1"));
    expect(err.code).toBe("connection_failed");
    expect(err.status).toBe(500);
    expect(err.message).toMatch(/^PooledDbClient: could not reach the database through Hyperdrive/);
    expectNoSecrets(err);
  });

  it("rejects bad arguments before connecting", async () => {
    expect((await failure(pg.query(""))).code).toBe("invalid_argument");
    expect((await failure(pg.query("SELECT $1", "x" as unknown as unknown[]))).code).toBe("invalid_argument");
    const undef = await failure(pg.query("SELECT $1", [undefined]));
    expect(undef.code).toBe("invalid_argument");
    expect(undef.message).toContain("params[0] is undefined (pass null for SQL NULL)");
  });
});

describe("PooledDbClient: the built-in driver and postgres.js agree", () => {
  const builtIn = new PooledDbClient(env.PG);
  const pgjs = new PooledDbClient(env.PG, { driver: postgresDriver });

  it.each<[string, string, unknown[]]>([
    [
      "numbers (int8 and numeric stay strings)",
      "SELECT 1::int2 AS a, 2::int4 AS b, 3::int8 AS c, 1.5::float4 AS d, 2.25::float8 AS e, 12.50::numeric AS f, 42::oid AS g, 'NaN'::float8 AS nan, '-Infinity'::float8 AS inf",
      [],
    ],
    [
      "booleans, NULL, text, arrays as text",
      "SELECT true AS t, false AS f, NULL::int AS n, 'héllo ✓ \"q\"'::text AS s, ''::text AS empty, ARRAY[1,2] AS arr",
      [],
    ],
    ["json and jsonb", `SELECT '{"a":[1,2]}'::json AS j, '{"b":null,"c":"✓"}'::jsonb AS jb`, []],
    [
      "dates",
      "SELECT '2026-11-26'::date AS d, '2026-11-26 12:34:56.789'::timestamp AS ts, '2026-11-26 12:34:56.789+02'::timestamptz AS tz",
      [],
    ],
    [
      "parameters of every kind",
      "SELECT $1::text AS s, $2::int AS i, $3::bool AS b, $4::jsonb AS j, $5::timestamptz AS ts, $6::numeric AS n, $7::int8 AS big, $8::text AS nul",
      ["x", 7, true, { a: [1, "two"] }, new Date("2026-11-26T10:00:00.000Z"), "12.5", 9_007_199_254_740_993n, null],
    ],
    ["untyped parameters", "SELECT $1 AS s, $2 AS b", ["plain", false]],
    ["duplicate column names (the last wins) and several rows", "SELECT 1 AS a, 2 AS a UNION ALL SELECT 3, 4", []],
    ["no rows", "SELECT 1 AS a WHERE false", []],
  ])("%s", async (_what, sql, params) => {
    expect(await builtIn.query(sql, params)).toEqual(await pgjs.query(sql, params));
  });

  it("bytea, both ways (postgres.js answers a Buffer, the built-in driver a Uint8Array)", async () => {
    const bytes = new Uint8Array([0, 1, 127, 128, 255]);
    const sql = "SELECT $1::bytea AS b, '\\x00ff'::bytea AS lit";
    const [a, b] = [(await builtIn.query(sql, [bytes])).results[0]!, (await pgjs.query(sql, [bytes])).results[0]!];
    expect(Array.from(a.b as Uint8Array)).toEqual(Array.from(b.b as Uint8Array));
    expect(Array.from(a.lit as Uint8Array)).toEqual([0, 255]);
    expect(Array.from(b.lit as Uint8Array)).toEqual([0, 255]);
  });
});

describe("SPEC: PooledDbClient: query(sql: string, params?: unknown[]): Promise<{ results: unknown[] }>", () => {
  it("runs a parameterized query on the external database, built as PlatformServiceProvider registers it", async () => {
    // Exactly the spec's calls: Application.create(env) with the provider, no options, no driver.
    const app = Application.create({ PG: env.PG }, { providers: [new PlatformServiceProvider()] });
    const pg = app.container.resolve(PooledDbClient);
    expect(app.container.resolve<PooledDbClient>("PG")).toBe(pg);
    expect(pg.raw).toBe(env.PG);

    await pg.query("DROP TABLE IF EXISTS spec_orders");
    await pg.query("CREATE TABLE spec_orders (id serial PRIMARY KEY, customer text NOT NULL, total numeric)");
    const inserted = await pg.query(
      "INSERT INTO spec_orders (customer, total) VALUES ($1, $2), ($3, $4) RETURNING id",
      ["acme", "19.99", "globex", 5],
    );
    expect(inserted.results).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await pg.query("SELECT customer, total FROM spec_orders WHERE customer = $1", ["acme"])).toEqual({
      results: [{ customer: "acme", total: "19.99" }],
    });
    expect((await pg.query("SELECT count(*)::int AS n FROM spec_orders")).results).toEqual([{ n: 2 }]);
    expect((await pg.query("SELECT id FROM spec_orders WHERE id = ANY($1) ORDER BY id", [[2, 3]])).results).toEqual([
      { id: 2 },
    ]);
  });

  it("binds arrays as Postgres arrays, quoting what needs quoting", async () => {
    const pg = new PooledDbClient(env.PG);
    const values = ["a,b", 'q"x\\y', "{}", null, "NULL", " ✓ "];
    const { results } = await pg.query(
      "SELECT array_length($1::text[], 1) AS n, ($1::text[])[1] AS a, ($1::text[])[2] AS b, ($1::text[])[3] AS c, ($1::text[])[4] IS NULL AS d, ($1::text[])[5] AS e, ($1::text[])[6] AS f",
      [values],
    );
    expect(results).toEqual([{ n: 6, a: "a,b", b: 'q"x\\y', c: "{}", d: true, e: "NULL", f: " ✓ " }]);
    const nested = await pg.query("SELECT ($1::int[][])[2][1] AS x", [
      [
        [1, 2],
        [3, 4],
      ],
    ]);
    expect(nested.results).toEqual([{ x: 3 }]);
  });

  it("works with a Hyperdrive-like binding (connectionString and connect only), detected by its shape", async () => {
    const like = { connectionString: env.PG.connectionString, connect: () => env.PG.connect() };
    const app = Application.create({ ORDERS_DB: like }, { providers: [new PlatformServiceProvider()] });
    const { results } = await app.container.resolve(PooledDbClient).query("SELECT $1::text || '!' AS hi", ["hello"]);
    expect(results).toEqual([{ hi: "hello!" }]);
  });

  it("gives the registration's PooledDbClient the driver passed to PlatformServiceProvider", async () => {
    const app = Application.create(
      { PG: env.PG },
      { providers: [new PlatformServiceProvider({ pooledDbDriver: postgresDriver })] },
    );
    expect((await app.container.resolve(PooledDbClient).query("SELECT 40 + 2 AS n")).results).toEqual([{ n: 42 }]);
  });
});
