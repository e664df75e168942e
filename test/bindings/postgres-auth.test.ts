/**
 * Password authentication of PooledDbClient's built-in Postgres driver, against oracles we did not
 * write: the SCRAM-SHA-256 exchange published in RFC 7677 §3, and, for the MD5 password message,
 * values computed once with Node's own MD5 (`node:crypto`, not WebCrypto):
 * `"md5" + md5(md5hex(password + user) + salt)`. (The PGlite server of hyperdrive.test.ts asks for
 * no password; all three methods were also run once by hand against a PostgreSQL 15 server.)
 */
import { describe, expect, it } from "vitest";
import { wireDriver } from "../../client-sdk/bindings/hyperdrive/wire";
import { md5Password, ScramSha256 } from "../../client-sdk/bindings/hyperdrive/wire/auth";

describe("SCRAM-SHA-256 (RFC 7677 §3 test vector)", () => {
  const serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";

  it("sends the RFC's client-first and client-final messages and accepts its server signature", async () => {
    const scram = new ScramSha256("rOprNGfwEbeRWgbNEkqO", "user");
    expect(scram.clientFirst).toBe("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
    expect(await scram.clientFinal("pencil", serverFirst)).toBe(
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
    );
    expect(() => scram.verifyServerFinal("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")).not.toThrow();
  });

  it("refuses a server that does not know the password, a refusal, and a nonce that is not ours", async () => {
    const scram = new ScramSha256("rOprNGfwEbeRWgbNEkqO", "user");
    await scram.clientFinal("pencil", serverFirst);
    expect(() => scram.verifyServerFinal("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")).toThrowError(/signature/);
    expect(() => scram.verifyServerFinal("e=invalid-proof")).toThrowError(/refused/);
    await expect(
      new ScramSha256("someone-else").clientFinal("pencil", serverFirst.replace("r=rOpr", "r=xOpr")),
    ).rejects.toThrowError(/nonce/);
  });

  it("names no user in Postgres's client-first message (the startup message does) and makes a fresh nonce", () => {
    const a = new ScramSha256();
    const b = new ScramSha256();
    expect(a.clientFirst).toMatch(/^n,,n=,r=[A-Za-z0-9+/]{24}$/);
    expect(a.clientNonce).not.toBe(b.clientNonce);
  });
});

describe("MD5 password message", () => {
  it("is md5 + md5hex(md5hex(password + user) + salt), as Node's MD5 computes it", async () => {
    expect(await md5Password("alice", "s3cr3t✓", new Uint8Array([0x01, 0xab, 0x00, 0xff]))).toBe(
      "md59e035381d378cb0d50f7ac8485542849",
    );
    expect(await md5Password("md5u", "md5-pass", new Uint8Array(4))).toBe("md567a64e49b15578741b41b68e167509b9");
  });
});

describe("a server that does not talk Postgres (issue 26 review)", () => {
  /** A Hyperdrive-shaped binding whose socket answers `bytes` to anything, then closes. */
  function answering(bytes: number[]): Hyperdrive {
    const socket = {
      opened: Promise.resolve({}),
      closed: Promise.resolve(),
      readable: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(bytes));
          controller.close();
        },
      }),
      writable: new WritableStream<Uint8Array>(),
      close: () => Promise.resolve(),
    };
    return {
      connectionString: "postgresql://user:secret@db.example:5432/app",
      host: "db.example",
      port: 5432,
      user: "user",
      password: "secret",
      database: "app",
      connect: () => socket,
    } as unknown as Hyperdrive;
  }

  it("a message length below 4 (which would read nothing, forever) or past the cap is refused, not looped on", async () => {
    for (const length of [
      [0xff, 0xff, 0xff, 0xff],
      [0, 0, 0, 0],
      [0x7f, 0xff, 0xff, 0xff],
    ]) {
      const failed = await wireDriver
        .query(answering([0x53, ...length, 0, 0]), "select 1", [])
        .catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: "connection_failed" });
      expect(String((failed as Error).message)).not.toContain("secret");
    }
  });

  it("SCRAM counts as done only once the server's signature verified", async () => {
    const scram = new ScramSha256("rOprNGfwEbeRWgbNEkqO", "user");
    await scram.clientFinal(
      "pencil",
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
    );
    expect(scram.serverVerified).toBe(false);
    scram.verifyServerFinal("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
    expect(scram.serverVerified).toBe(true);
  });
});
