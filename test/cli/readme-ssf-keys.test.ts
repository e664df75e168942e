/**
 * README's signing-key command for shared signals (issue 32), run as written: the `node -e` line of
 * "Shared signals out" prints what the start-up check asks for (a JSON array of private EC P-256
 * JWKs, each with a kid, whose private half signs what its public half verifies; checked here with
 * `jose`, not our code). The `wrangler secret put` beside it needs a Cloudflare account and is not run.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CompactSign, compactVerify, importJWK, type JWK } from "jose";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

it("README's key command prints one P-256 private JWK with a kid that signs ES256", async () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const line = readme.split("\n").find((l) => l.startsWith(`node -e 'import("jose")`));
  expect(line, "README has the key command").toBeDefined();
  const script = /^node -e '(.*)' > ssf-keys\.json$/.exec(line!)?.[1];
  expect(script, "the command writes ssf-keys.json").toBeDefined();
  const out = execFileSync(process.execPath, ["-e", script!], { cwd: ROOT, encoding: "utf8" });
  const keys = JSON.parse(out) as JWK[];
  expect(keys).toHaveLength(1);
  const [key] = keys as [JWK];
  expect(key).toMatchObject({ kty: "EC", crv: "P-256", kid: expect.stringMatching(/^ssf-\d{4}-\d{2}-\d{2}$/) });
  for (const member of ["x", "y", "d"] as const) expect(Buffer.from(key[member]!, "base64url")).toHaveLength(32);
  const { d: _private, ...publicJwk } = key;
  const jws = await new CompactSign(new TextEncoder().encode("probe"))
    .setProtectedHeader({ alg: "ES256" })
    .sign(await importJWK(key, "ES256"));
  await compactVerify(jws, await importJWK(publicJwk, "ES256"));
});
