// `gatehouse-workers dev` without the real wrangler (too slow): the refusal of a .dev.vars the
// worker's rules reject, the missing-wrangler message, taken ports, and a stand-in wrangler that
// records how it was started, checks the provider is up, delivers one signed security event to the
// URL it was lent (as the worker's outbox would), changes a role at the provider (saved in the
// project's directory file), and exits or, holding its port, waits for a forwarded signal. Also the
// same command started twice on the same ports (issue 19).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planDev } from "../../scripts/cli/dev-plan.ts";
import { parseDevVars } from "../../scripts/cli/dev-vars.ts";
import { CliError } from "../../scripts/cli/errors.ts";
import { initProject } from "../../scripts/cli/init.ts";
import { freePort, installWranglerStandIn, occupiedPort, runCli, STACK_LINE, startCli, tempDir } from "./helpers.ts";

const posixOnly = it.skipIf(process.platform === "win32");

/** A project made by init, in a temp directory. */
function project(): string {
  return initProject(join(tempDir(), "auth"), {}, { nodeVersion: "24.11.0" }).dir;
}

/**
 * Installs a stand-in `node_modules/wrangler/bin/wrangler.js` (what `dev` runs with its own Node):
 * it writes `wrangler-call.json` (its arguments, two variables, the provider's health, the status
 * of a role change at the provider, the answer to a security event signed with .dev.vars' secret
 * and posted to SECURITY_EVENTS_WEBHOOK_URL) and then exits 7, or with FAKE_WRANGLER=wait listens
 * on its --port (as wrangler dev would), waits for a signal and exits 0 on SIGTERM.
 */
function installFakeWrangler(dir: string): void {
  installWranglerStandIn(
    dir,
    `const fs = require("node:fs");
const args = process.argv.slice(2);
const idpPort = (args.find((a) => a.startsWith("IDENTITY_API_PORT:")) || "").split(":")[1];
const eventsVar = args.find((a) => a.startsWith("SECURITY_EVENTS_WEBHOOK_URL:")) || "";
const eventsUrl = eventsVar.slice(eventsVar.indexOf(":") + 1);
async function deliverEvent() {
  const secret = /^SECURITY_EVENTS_WEBHOOK_SECRET=(.*)$/m.exec(fs.readFileSync(".dev.vars", "utf8"))[1];
  const body = JSON.stringify({ id: "evt_fake", seq: 1, userId: "user_fake", type: "session.signed_in",
    at: Date.now(), sessionId: null, device: null, ip: null, location: null, actor: null, detail: {} });
  const t = String(Date.now());
  const v1 = require("node:crypto").createHmac("sha256", secret).update(t + "." + body).digest("hex");
  const res = await fetch(eventsUrl, { method: "POST", body, headers: {
    "content-type": "application/json", "Gatehouse-Signature": "t=" + t + ", v1=" + v1, "Gatehouse-Event-Id": "evt_fake" } });
  return { status: res.status, body: await res.json() };
}
(async () => {
  const health = idpPort ? await (await fetch("http://127.0.0.1:" + idpPort + "/__local/health")).json() : null;
  // A person changing a role at the provider while the worker runs (the provider saves its directory).
  const role = idpPort ? (await fetch("http://127.0.0.1:" + idpPort + "/__local/memberships/om_01ADAACME00000000000000000/role", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ role: "member" }) })).status : null;
  const env = { metrics: process.env.WRANGLER_SEND_METRICS, cf: process.env.CLOUDFLARE_CF_FETCH_ENABLED };
  const securityEvent = eventsVar ? await deliverEvent() : null;
  fs.writeFileSync("wrangler-call.json", JSON.stringify({ args, env, health, role, securityEvent }));
  if (process.env.FAKE_WRANGLER !== "wait") process.exit(7);
  process.on("SIGTERM", () => process.exit(0));
  // Hold the worker's port, as wrangler dev does.
  const port = Number(args[args.indexOf("--port") + 1]);
  await new Promise((ok) => require("node:net").createServer().listen(port, "127.0.0.1", ok));
  console.log("fake wrangler waiting");
  // Never outlive the dev process (should a test kill it hard).
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(1), 200);
})();
`,
  );
}

interface WranglerCall {
  args: string[];
  env: { metrics?: string; cf?: string };
  health: { ok: boolean; client_id: string } | null;
  role: number | null;
  securityEvent: { status: number; body: unknown } | null;
}

const callOf = (dir: string) => JSON.parse(readFileSync(join(dir, "wrangler-call.json"), "utf8")) as WranglerCall;

describe("gatehouse-workers dev (the executable)", () => {
  posixOnly(
    "refuses a .dev.vars the worker's rules reject, one line per problem, before starting anything",
    async () => {
      const dir = project();
      installFakeWrangler(dir);
      const vars = readFileSync(join(dir, ".dev.vars"), "utf8")
        .replace(/^SESSION_SECRET=.*$/m, "SESSION_SECRET=changeme")
        .replace(/^ADMIN_API_TOKEN=.*$/m, "ADMIN_API_TOKEN=short-but-random-9x")
        .replace(/^AUTH_REDIRECT_URL=.*$/m, "AUTH_REDIRECT_URL=http://auth.example.com/auth/callback");
      writeFileSync(join(dir, ".dev.vars"), vars);
      const result = await runCli(["dev"], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr.trimEnd().split("\n")).toEqual([
        "gatehouse-workers: .dev.vars: SESSION_SECRET is a placeholder, not a secret (generate one: openssl rand -base64 32)",
        "gatehouse-workers: .dev.vars: ADMIN_API_TOKEN must be at least 32 characters (generate one: openssl rand -base64 32)",
        expect.stringMatching(
          /^gatehouse-workers: \.dev\.vars: AUTH_REDIRECT_URL is http: on a host that is not loopback/,
        ),
      ]);
      expect(result.stderr).not.toMatch(/changeme|short-but-random/);
      expect(existsSync(join(dir, "wrangler-call.json"))).toBe(false);
    },
  );

  it("asks for npm install when the project's wrangler is missing", async () => {
    const dir = project();
    const result = await runCli(["dev"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`gatehouse-workers: wrangler is not installed in ${dir}: run npm install first\n`);
  });

  it("says where to run it when there is no .dev.vars", async () => {
    const result = await runCli(["dev"], { cwd: tempDir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^gatehouse-workers: no \.dev\.vars in .*gatehouse-workers init/);
    expect(result.stderr).not.toContain(STACK_LINE);
  });

  posixOnly("starts the provider, runs wrangler dev with metrics off and exits with wrangler's code", async () => {
    const dir = project();
    installFakeWrangler(dir);
    const [port, idpPort] = [await freePort(), await freePort()];
    const result = await runCli(["dev", "--port", String(port), "--idp-port", String(idpPort)], { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(7);
    const call = callOf(dir);
    expect(call.args).toEqual([
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--show-interactive-dev-session=false",
      "--var",
      `AUTH_REDIRECT_URL:http://127.0.0.1:${port}/auth/callback`,
      "--var",
      `IDENTITY_API_PORT:${idpPort}`,
      "--var",
      `SECURITY_EVENTS_WEBHOOK_URL:http://127.0.0.1:${idpPort}/__local/security-events`,
    ]);
    expect(call.env).toEqual({ metrics: "false", cf: "false" });
    expect(call.health).toMatchObject({ ok: true, client_id: "client_local" });
    // The provider keeps its directory beside wrangler's local state: the role changed there is saved.
    expect(call.role).toBe(200);
    const saved = JSON.parse(readFileSync(join(dir, ".wrangler/state/local-idp/directory.json"), "utf8")) as {
      memberships: { id: string; role: string }[];
    };
    expect(saved.memberships.find((m) => m.id === "om_01ADAACME00000000000000000")?.role).toBe("member");
    expect(result.stdout).toContain("(directory in .wrangler/state/local-idp/directory.json;");
    // The provider was started with .dev.vars' secret: a delivery signed with it is received.
    expect(call.securityEvent).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(result.stdout).toContain(`signed webhooks to http://127.0.0.1:${port}/webhooks/identity`);
    expect(result.stdout).toContain(
      `gatehouse-workers: security events go to http://127.0.0.1:${idpPort}/__local/security-events  (signed; listed on http://127.0.0.1:${idpPort}/)`,
    );
    const secret = parseDevVars(readFileSync(join(dir, ".dev.vars"), "utf8")).SECURITY_EVENTS_WEBHOOK_SECRET!;
    expect(result.stdout).not.toContain(secret);
    await expect(fetch(`http://127.0.0.1:${idpPort}/__local/health`)).rejects.toThrow();
  });

  posixOnly("passes SIGTERM on to wrangler, then closes the provider", async () => {
    const dir = project();
    installFakeWrangler(dir);
    const [port, idpPort] = [await freePort(), await freePort()];
    const run = startCli(["dev", "--port", String(port), "--idp-port", String(idpPort)], {
      cwd: dir,
      env: { FAKE_WRANGLER: "wait" },
    });
    await run.waitFor(/fake wrangler waiting/);
    run.child.kill("SIGTERM");
    const result = await run.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    await expect(fetch(`http://127.0.0.1:${idpPort}/__local/health`)).rejects.toThrow();
  });

  posixOnly("names a taken worker port or provider port in one line and exits 1", async () => {
    const dir = project();
    installFakeWrangler(dir);
    const taken = await occupiedPort();
    const free = await freePort();
    const worker = await runCli(["dev", "--port", String(taken), "--idp-port", String(free)], { cwd: dir });
    expect(worker.code).toBe(1);
    expect(worker.stderr).toBe(
      `gatehouse-workers: port ${taken} is already in use (is another gatehouse-workers dev running? stop it, or pick another: gatehouse-workers dev --port 9000 --idp-port ${free})\n`,
    );
    const idp = await runCli(["dev", "--port", String(free), "--idp-port", String(taken)], { cwd: dir });
    expect(idp.code).toBe(1);
    expect(idp.stderr).toBe(
      `gatehouse-workers: port ${taken} is already in use (is another gatehouse-workers dev running? stop it, or pick another: gatehouse-workers dev --port ${free} --idp-port 9001)\n`,
    );
    expect(existsSync(join(dir, "wrangler-call.json"))).toBe(false);
  });

  posixOnly(
    "started twice on the same ports: the second names both in one line, exits 1, the first runs on",
    async () => {
      const dir = project();
      installFakeWrangler(dir);
      const [port, idpPort] = [await freePort(), await freePort()];
      const args = ["dev", "--port", String(port), "--idp-port", String(idpPort)];
      const first = startCli(args, { cwd: dir, env: { FAKE_WRANGLER: "wait" } });
      await first.waitFor(/fake wrangler waiting/);
      const second = await runCli(args, { cwd: dir, env: { FAKE_WRANGLER: "wait" } });
      expect(second.code).toBe(1);
      expect(second.stdout).toBe("");
      expect(second.stderr).toBe(
        `gatehouse-workers: ports ${port} and ${idpPort} are already in use (is another gatehouse-workers dev running? stop it, or pick others: gatehouse-workers dev --port 9000 --idp-port 9001)\n`,
      );
      expect(second.stderr).not.toContain(STACK_LINE);
      expect((await fetch(`http://127.0.0.1:${idpPort}/__local/health`)).status).toBe(200);
      first.child.kill("SIGTERM");
      expect((await first.exited).code).toBe(0);
    },
  );
});

describe("planDev", () => {
  const LOCAL_EVENTS_VAR = "SECURITY_EVENTS_WEBHOOK_URL:http://127.0.0.1:8788/__local/security-events";
  const generated = () => parseDevVars(readFileSync(join(project(), ".dev.vars"), "utf8"));

  it("with init's .dev.vars: the worker on 8787, the provider on 8788 with webhooks, security events to it", () => {
    const vars = generated();
    const plan = planDev({}, vars);
    expect(plan.port).toBe(8787);
    expect(plan.vars).toEqual([LOCAL_EVENTS_VAR]);
    expect(plan.wranglerArgs).toEqual([
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      "8787",
      "--show-interactive-dev-session=false",
      "--var",
      LOCAL_EVENTS_VAR,
    ]);
    expect(plan.wranglerEnv).toEqual({ WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" });
    expect(plan.idp).toEqual({
      port: 8788,
      host: "127.0.0.1",
      apiKey: "sk_test_local",
      clientId: "client_local",
      webhook: { url: "http://127.0.0.1:8787/webhooks/identity", secret: vars.IDENTITY_WEBHOOK_SECRET },
      securityEvents: { secret: vars.SECURITY_EVENTS_WEBHOOK_SECRET },
    });
    expect(plan.securityEvents).toEqual({ url: "http://127.0.0.1:8788/__local/security-events", local: true });
  });

  it("lends the security-events URL only with a secret and no URL of .dev.vars' own", () => {
    const vars = generated();
    delete vars.SECURITY_EVENTS_WEBHOOK_SECRET;
    const noSecret = planDev({}, vars);
    expect(noSecret.vars).toEqual([]);
    expect(noSecret.idp).not.toHaveProperty("securityEvents");
    expect(noSecret.securityEvents).toBeNull();

    const own = { ...generated(), SECURITY_EVENTS_WEBHOOK_URL: "http://127.0.0.1:9999/hooks/security" };
    const declared = planDev({}, own);
    expect(declared.vars).toEqual([]);
    expect(declared.wranglerArgs.join(" ")).not.toContain("SECURITY_EVENTS_WEBHOOK_URL");
    expect(declared.securityEvents).toEqual({ url: "http://127.0.0.1:9999/hooks/security", local: false });
  });

  it("points the security-events URL at the provider's port and address", () => {
    expect(planDev({ idpPort: "9100" }, generated()).vars).toEqual([
      "IDENTITY_API_PORT:9100",
      "SECURITY_EVENTS_WEBHOOK_URL:http://127.0.0.1:9100/__local/security-events",
    ]);
    const v6 = planDev({}, { ...generated(), IDENTITY_API_HOSTNAME: "::1" });
    expect(v6.idp?.host).toBe("::1");
    expect(v6.vars).toContain("SECURITY_EVENTS_WEBHOOK_URL:http://[::1]:8788/__local/security-events");
  });

  it("lends nothing when .dev.vars names a real provider (no local receiver)", () => {
    const vars = { ...generated(), IDENTITY_API_HOSTNAME: "api.workos.com" };
    const plan = planDev({}, vars);
    expect(plan.idp).toBeNull();
    expect(plan.vars).toEqual([]);
    expect(plan.securityEvents).toBeNull();
  });

  it("refuses a weak SECURITY_EVENTS_WEBHOOK_SECRET by name, never by value", () => {
    const vars = { ...generated(), SECURITY_EVENTS_WEBHOOK_SECRET: "changeme" };
    let error: unknown;
    try {
      planDev({}, vars);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe("invalid_config");
    expect((error as CliError).lines).toEqual([
      ".dev.vars: SECURITY_EVENTS_WEBHOOK_SECRET is a placeholder, not a secret (generate one: openssl rand -base64 32)",
    ]);
  });

  it("starts no provider when .dev.vars names a real one", () => {
    const vars = generated();
    delete vars.IDENTITY_API_HOSTNAME;
    delete vars.IDENTITY_API_PORT;
    delete vars.IDENTITY_API_HTTPS;
    expect(planDev({}, vars).idp).toBeNull();
    expect(planDev({}, { ...vars, IDENTITY_API_HOSTNAME: "api.workos.com" }).idp).toBeNull();
  });

  it("lends the worker what the local provider needs when .dev.vars lacks it", () => {
    const vars = generated();
    delete vars.IDENTITY_API_PORT;
    delete vars.IDENTITY_API_KEY;
    vars.IDENTITY_API_HTTPS = "true";
    expect(planDev({}, vars).vars).toEqual([
      "IDENTITY_API_PORT:8788",
      "IDENTITY_API_HTTPS:false",
      "IDENTITY_API_KEY:sk_test_local",
      LOCAL_EVENTS_VAR,
    ]);
  });

  it("refuses port 0 and a malformed port", () => {
    const vars = generated();
    for (const flags of [{ port: "0" }, { idpPort: "0" }, { port: "eighty" }]) {
      expect(() => planDev(flags, vars)).toThrow(CliError);
    }
  });
});
