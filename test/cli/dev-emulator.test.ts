// `gatehouse-workers dev --workos-emulator` (issue 26): the plan (no local provider, the webhook to
// the worker with .dev.vars' own secret, no security-event receiver), the variables a run gets once
// the emulator runs (IDENTITY_* and demo ids mapped to the emulator's), and one run of the
// executable with a stand-in wrangler against the real emulator (installed in the cache folder
// on first use): the variables reach a live emulator, which knows the mapped organization, and a
// role change made there reaches the worker's port signed with .dev.vars' IDENTITY_WEBHOOK_SECRET.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emulatorVars } from "../../scripts/cli/dev-emulator.ts";
import { planDev } from "../../scripts/cli/dev-plan.ts";
import { parseDevVars } from "../../scripts/cli/dev-vars.ts";
import { CliError } from "../../scripts/cli/errors.ts";
import { initProject } from "../../scripts/cli/init.ts";
import { ACME_ID, ADA_ID, GLOBEX_ID } from "../../scripts/local-idp/demo-data.ts";
import { freePort, installWranglerStandIn, runCli, STACK_LINE, tempDir } from "./helpers.ts";

const project = () => initProject(join(tempDir(), "auth"), {}, { nodeVersion: "24.11.0" }).dir;
const generated = () => parseDevVars(readFileSync(join(project(), ".dev.vars"), "utf8"));

describe("planDev with --workos-emulator", () => {
  it("starts no local provider, forwards webhooks to the worker with .dev.vars' secret, lends no receiver", () => {
    const vars = generated();
    const plan = planDev({ port: "9000", workosEmulator: true }, vars);
    expect(plan.idp).toBeNull();
    expect(plan.emulator).toEqual({
      webhook: { url: "http://127.0.0.1:9000/webhooks/identity", secret: vars.IDENTITY_WEBHOOK_SECRET },
    });
    // Only the redirect follows --port; IDENTITY_* come once the emulator runs, and it has no security-event inbox.
    expect(plan.vars).toEqual(["AUTH_REDIRECT_URL:http://127.0.0.1:9000/auth/callback"]);
    expect(plan.securityEvents).toBeNull();
    expect(planDev({}, vars).emulator).toBeNull();
  });

  it("turns webhooks off without IDENTITY_WEBHOOK_SECRET, and refuses --idp-port", () => {
    const vars = generated();
    delete vars.IDENTITY_WEBHOOK_SECRET;
    expect(planDev({ workosEmulator: true }, vars).emulator).toEqual({ webhook: null });
    let error: unknown;
    try {
      planDev({ idpPort: "9001", workosEmulator: true }, generated());
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe("usage");
  });
});

describe("emulatorVars", () => {
  const world = {
    hostname: "127.0.0.1",
    port: 40123,
    apiKey: "sk_test_default",
    clientId: "client_emulated",
    userIds: { [ADA_ID]: "user_01EMULATEDADA", "ada@acme.test": "user_01EMULATEDADA" },
    organizationIds: { [ACME_ID]: "org_01EMULATEDACME", [GLOBEX_ID]: "org_01EMULATEDGLOBEX" },
  };

  it("points IDENTITY_* at the emulator and maps demo ids in other values, never in secrets", () => {
    const vars = emulatorVars(world, {
      ...generated(),
      ADMIN_CONSOLE_ORGANIZATIONS: `${ACME_ID}, ${GLOBEX_ID}`,
      SUPPORT_USER: ADA_ID,
      SESSION_SECRET: `${ACME_ID}-not-really-a-secret`,
      AUTH_RETURN_ORIGINS: "http://127.0.0.1:8789",
    });
    expect(vars).toEqual([
      "IDENTITY_API_KEY:sk_test_default",
      "IDENTITY_CLIENT_ID:client_emulated",
      "IDENTITY_API_HOSTNAME:127.0.0.1",
      "IDENTITY_API_PORT:40123",
      "IDENTITY_API_HTTPS:false",
      "ADMIN_CONSOLE_ORGANIZATIONS:org_01EMULATEDACME, org_01EMULATEDGLOBEX",
      "SUPPORT_USER:user_01EMULATEDADA",
    ]);
  });
});

/**
 * A stand-in `node_modules/wrangler/bin/wrangler.js`: holds the worker's --port and records what
 * reaches /webhooks/identity there; reads the emulator's coordinates from its --var arguments,
 * lists the emulator's organizations with the lent key, changes Ada's role at Acme (the emulator
 * then sends `organization_membership.updated`), waits for that delivery, writes
 * `wrangler-call.json` and exits 7.
 */
function installEmulatorWrangler(dir: string): void {
  installWranglerStandIn(
    dir,
    `const fs = require("node:fs");
const args = process.argv.slice(2);
const vars = {};
for (let i = 0; i < args.length; i++) if (args[i] === "--var") {
  const v = args[i + 1]; vars[v.slice(0, v.indexOf(":"))] = v.slice(v.indexOf(":") + 1);
}
const deliveries = [];
const server = require("node:http").createServer((req, res) => {
  let body = "";
  req.on("data", (c) => { body += c; });
  req.on("end", () => { deliveries.push({ path: req.url, body, signature: req.headers["workos-signature"] }); res.end("{}"); });
});
(async () => {
  const port = Number(args[args.indexOf("--port") + 1]);
  await new Promise((ok) => server.listen(port, "127.0.0.1", ok));
  const base = "http://" + vars.IDENTITY_API_HOSTNAME + ":" + vars.IDENTITY_API_PORT;
  const api = async (method, path, body) => (await fetch(base + path, { method,
    headers: { authorization: "Bearer " + vars.IDENTITY_API_KEY, "content-type": "application/json" },
    body: body && JSON.stringify(body) })).json();
  const orgs = (await api("GET", "/organizations?limit=100")).data.map((o) => ({ id: o.id, name: o.name }));
  const acme = orgs.find((o) => o.name === "Acme").id;
  const ada = (await api("GET", "/user_management/users?email=ada@acme.test")).data[0].id;
  const membership = (await api("GET", "/user_management/organization_memberships?user_id=" + ada + "&organization_id=" + acme)).data[0];
  await api("PUT", "/user_management/organization_memberships/" + membership.id, { role_slug: "member" });
  for (let i = 0; i < 100 && deliveries.length === 0; i++) await new Promise((ok) => setTimeout(ok, 50));
  fs.writeFileSync("wrangler-call.json", JSON.stringify({ args, vars, orgs, acme, deliveries }));
  process.exit(7);
})();
`,
  );
}

interface EmulatorCall {
  args: string[];
  vars: Record<string, string>;
  orgs: { id: string; name: string }[];
  acme: string;
  deliveries: { path: string; body: string; signature: string }[];
}

describe("gatehouse-workers dev --workos-emulator (the executable, a stand-in wrangler)", () => {
  it.skipIf(process.platform === "win32")(
    "points the worker at a live emulator with the demo ids mapped, relays its webhooks signed, then stops it",
    async () => {
      const dir = project();
      installEmulatorWrangler(dir);
      appendFileSync(join(dir, ".dev.vars"), `ADMIN_CONSOLE_ORGANIZATIONS=${ACME_ID}\n`);
      const devVars = parseDevVars(readFileSync(join(dir, ".dev.vars"), "utf8"));
      const port = await freePort();
      const result = await runCli(["dev", "--workos-emulator", "--port", String(port)], { cwd: dir });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(7);
      const call = JSON.parse(readFileSync(join(dir, "wrangler-call.json"), "utf8")) as EmulatorCall;

      expect(call.vars).toMatchObject({
        IDENTITY_API_KEY: "sk_test_default",
        IDENTITY_CLIENT_ID: "client_emulated",
        IDENTITY_API_HOSTNAME: "127.0.0.1",
        IDENTITY_API_HTTPS: "false",
        ADMIN_CONSOLE_ORGANIZATIONS: call.acme,
      });
      expect(call.vars).not.toHaveProperty("SECURITY_EVENTS_WEBHOOK_URL");
      expect(call.vars).not.toHaveProperty("IDENTITY_WEBHOOK_SECRET");
      expect(call.acme).not.toBe(ACME_ID);
      expect(call.orgs.map((o) => o.name).sort()).toEqual(["Acme", "Globex"]);

      // The emulator's own delivery, signed again by the relay with the worker's secret (t in ms).
      expect(call.deliveries).toHaveLength(1);
      const [delivery] = call.deliveries;
      expect(delivery!.path).toBe("/webhooks/identity");
      expect(JSON.parse(delivery!.body)).toMatchObject({ event: "organization_membership.updated" });
      const { createHmac } = await import("node:crypto");
      const t = /^t=(\d+),/.exec(delivery!.signature)![1]!;
      expect(t.length).toBeGreaterThanOrEqual(13);
      const v1 = createHmac("sha256", devVars.IDENTITY_WEBHOOK_SECRET!).update(`${t}.${delivery!.body}`).digest("hex");
      expect(delivery!.signature).toBe(`t=${t},v1=${v1}`);

      const emulatorUrl = `http://127.0.0.1:${call.vars.IDENTITY_API_PORT}`;
      expect(result.stdout).toContain(`gatehouse-workers: WorkOS's emulator on ${emulatorUrl}`);
      expect(result.stdout).toContain(`for this run ADMIN_CONSOLE_ORGANIZATIONS=${call.acme}`);
      expect(result.stdout).toContain("login_hint=<email>");
      expect(result.stdout).toContain("WorkOS's emulator has no security-event inbox");
      for (const secret of ["IDENTITY_WEBHOOK_SECRET", "SESSION_SECRET", "SECURITY_EVENTS_WEBHOOK_SECRET"]) {
        expect(result.stdout).not.toContain(devVars[secret]!);
      }
      await expect(fetch(`${emulatorUrl}/organizations`)).rejects.toThrow();
    },
    60_000,
  );

  it("says in one line when the emulator cannot be installed, and starts no wrangler", async () => {
    const dir = project();
    installEmulatorWrangler(dir);
    // A cache folder under a file: the install fails before npm is ever asked.
    const cache = join(dir, "not-a-folder");
    writeFileSync(cache, "");
    const result = await runCli(["dev", "--workos-emulator", "--port", String(await freePort())], {
      cwd: dir,
      env: { GATEHOUSE_CACHE_DIR: cache },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^gatehouse-workers: could not start WorkOS's emulator: ENOTDIR[^\n]*\n$/);
    expect(result.stderr).not.toContain(STACK_LINE);
    expect(result.stdout).toBe("");
  });
});
