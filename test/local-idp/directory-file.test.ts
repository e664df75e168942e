// Issue 19: the provider keeps its directory (people, organizations, memberships and roles) in a file
// when given one: a role changed on the dashboard, as a person would, is there after a restart; a
// corrupt file is one line and the demo directory; no file option, no file; codes and sessions are
// never saved. Each test has its own temp file (never the project's .wrangler/state).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDirectory } from "../../scripts/local-idp/directory-file.ts";
import { ACME_ID, ADA_ID, ALAN_ID, GRACE_ID, type LocalIdp } from "../../scripts/local-idp/index.ts";
import { IdpStore } from "../../scripts/local-idp/store.ts";
import { login, resetIdp, startTestIdp } from "./helpers.ts";

const ADA_ACME = "om_01ADAACME00000000000000000";

const dirs: string[] = [];
const running: LocalIdp[] = [];
afterEach(async () => {
  for (const idp of running.splice(0)) await idp.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-idp-directory-"));
  dirs.push(dir);
  return { dir, file: join(dir, "state", "local-idp", "directory.json") };
}

async function start(file: string | undefined, warnings: string[] = []): Promise<LocalIdp> {
  const idp = await startTestIdp({
    ...(file === undefined ? {} : { directoryFile: file }),
    warn: (line) => warnings.push(line),
  });
  running.push(idp);
  return idp;
}

async function stop(idp: LocalIdp): Promise<void> {
  running.splice(running.indexOf(idp), 1);
  await idp.close();
}

/** Changes a membership's role on the dashboard page, with its form token, as a person would. */
async function changeRoleOnDashboard(idp: LocalIdp, membershipId: string, role: string): Promise<void> {
  const page = await (await fetch(`${idp.url}/`)).text();
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const res = await fetch(`${idp.url}/dashboard/memberships/${membershipId}/role`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, role }),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
}

async function roleOf(idp: LocalIdp, userId: string, organizationId: string): Promise<string | undefined> {
  const body = (await (await fetch(`${idp.url}/__local/directory`)).json()) as {
    memberships: { user_id: string; organization_id: string; role: { slug: string } }[];
  };
  return body.memberships.find((m) => m.user_id === userId && m.organization_id === organizationId)?.role.slug;
}

describe("the directory file", () => {
  it("keeps a role changed on the dashboard across a restart, and the next sign-in carries it", async () => {
    const { file } = tempFile();
    const first = await start(file);
    expect(await roleOf(first, ADA_ID, ACME_ID)).toBe("admin");
    await changeRoleOnDashboard(first, ADA_ACME, "member");
    await stop(first);

    const second = await start(file);
    expect(await roleOf(second, ADA_ID, ACME_ID)).toBe("member");
    const auth = await login(second, ADA_ID, ACME_ID);
    expect(auth.user.id).toBe(ADA_ID);
    // The access token the worker reads the role from says so too.
    const claims = JSON.parse(Buffer.from(auth.accessToken.split(".")[1]!, "base64url").toString()) as {
      role?: string;
    };
    expect(claims.role).toBe("member");
  });

  it("keeps memberships added and removed and people deleted; saves no codes, sessions or tokens", async () => {
    const { file } = tempFile();
    const idp = await start(file);
    const added = await fetch(`${idp.url}/__local/memberships`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: ALAN_ID, organization_id: "org_01GLOBEX000000000000000000", role: "admin" }),
    });
    expect(added.status).toBe(201);
    expect((await fetch(`${idp.url}/__local/users/${GRACE_ID}`, { method: "DELETE" })).status).toBe(200);
    await login(idp, ADA_ID, ACME_ID);
    const text = readFileSync(file, "utf8");
    expect(text).not.toMatch(/refresh|session_|"code"/i);
    const saved = JSON.parse(text) as { users: { id: string; lastSignInAt: string | null }[] };
    expect(saved.users.map((u) => u.id)).not.toContain(GRACE_ID);
    expect(saved.users.find((u) => u.id === ADA_ID)?.lastSignInAt).not.toBeNull();
    await stop(idp);

    const again = await start(file);
    expect(await roleOf(again, ALAN_ID, "org_01GLOBEX000000000000000000")).toBe("admin");
    expect(await roleOf(again, GRACE_ID, ACME_ID)).toBeUndefined();
    // Reset is the way back to the demo directory, and that is saved too.
    await resetIdp(again);
    expect(await roleOf(again, GRACE_ID, ACME_ID)).toBe("member");
    expect(parseDirectory(JSON.parse(readFileSync(file, "utf8")))).toMatchObject({ ok: true });
  });

  it("writes through a temporary file and a rename: only the file itself is left beside it", async () => {
    const { file } = tempFile();
    const idp = await start(file);
    await changeRoleOnDashboard(idp, ADA_ACME, "member");
    await changeRoleOnDashboard(idp, ADA_ACME, "admin");
    expect(readdirSync(join(file, ".."))).toEqual(["directory.json"]);
  });

  it("reports a corrupt file in one line, uses the demo directory, and saves over it on the next change", async () => {
    const { dir, file } = tempFile();
    const corrupt = join(dir, "corrupt.json");
    writeFileSync(corrupt, '{"version":1,"users":[');
    const warnings: string[] = [];
    const idp = await start(corrupt, warnings);
    expect(warnings).toEqual([
      `local-idp: ignoring the saved directory ${corrupt}: it is not JSON; using the demo directory`,
    ]);
    expect(await roleOf(idp, ADA_ID, ACME_ID)).toBe("admin");
    await changeRoleOnDashboard(idp, ADA_ACME, "member");
    expect(parseDirectory(JSON.parse(readFileSync(corrupt, "utf8")))).toMatchObject({ ok: true });

    // Valid JSON of the wrong shape, and a membership of nobody, are refused the same way.
    const wrong: string[] = [];
    writeFileSync(file.replace("state/local-idp/directory.json", "wrong.json"), JSON.stringify({ version: 2 }));
    await start(file.replace("state/local-idp/directory.json", "wrong.json"), wrong);
    expect(wrong).toEqual([expect.stringMatching(/: it is not a version 1 directory file; using the demo directory$/)]);
    const store = new IdpStore();
    const snapshot = store.directory();
    snapshot.memberships.push({ ...snapshot.memberships[0]!, id: "om_x", userId: "user_nobody" });
    expect(parseDirectory(snapshot)).toEqual({
      ok: false,
      reason: "a membership names an unknown user or organization",
    });
  });

  it("without a file option writes nothing anywhere (tests and the e2e stack pass none)", async () => {
    const { dir } = tempFile();
    const idp = await start(undefined);
    await changeRoleOnDashboard(idp, ADA_ACME, "member");
    await stop(idp);
    const fresh = await start(undefined);
    expect(await roleOf(fresh, ADA_ID, ACME_ID)).toBe("admin");
    expect(readdirSync(dir)).toEqual([]);
  });
});
