// `gatehouse-workers dev-idp`: the executable runs the local identity provider (port 0 prints the
// port it got), answers /__local/health, prints the worker's IDENTITY_* lines and stops cleanly on
// SIGTERM; a taken port is one line and exit code 1; with a security-events secret it receives
// signed events without ever printing the secret; it keeps its directory in the project's
// .wrangler/state (or --directory-file, or nowhere with --in-memory) and reports a corrupt one in
// one line (issue 19). Each run has its own temp directory. Also the flag/variable precedence.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { beforeEach, describe, expect, it } from "vitest";
import { signSecurityEvent } from "../../client-sdk/security-events/index.ts";
import { CliError } from "../../scripts/cli/errors.ts";
import { idpOptionsFrom } from "../../scripts/cli/idp.ts";
import { MAIN, occupiedPort, runCli, STACK_LINE, startCli, tempDir } from "./helpers.ts";

const LISTENING = /local identity provider on (http:\/\/127\.0\.0\.1:(\d+))/;

let log = "";
beforeEach(() => {
  log = join(tempDir(), "dev-idp.log");
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await delay(50);
  }
}

async function waitForFile(path: string, pattern: RegExp): Promise<RegExpMatchArray> {
  let match: RegExpMatchArray | null = null;
  await waitUntil(() => {
    try {
      match = pattern.exec(readFileSync(path, "utf8"));
    } catch {
      match = null;
    }
    return match !== null;
  }, 10_000);
  return match!;
}

describe("gatehouse-workers dev-idp (the executable)", () => {
  it("serves the provider on the port it got, prints the .dev.vars lines, stops on SIGTERM with 0", async () => {
    const run = startCli(["dev-idp", "--port", "0"], { cwd: tempDir(), env: { LOCAL_IDP_PORT: "1" } });
    const [, url, port] = await run.waitFor(LISTENING);
    expect(Number(port)).toBeGreaterThan(0);
    const health = await fetch(`${url}/__local/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, client_id: "client_local", issuer: url });

    run.child.kill("SIGTERM");
    const result = await run.exited;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      [
        "IDENTITY_API_KEY=sk_test_local",
        "IDENTITY_CLIENT_ID=client_local",
        "IDENTITY_API_HOSTNAME=127.0.0.1",
        `IDENTITY_API_PORT=${port}`,
        "IDENTITY_API_HTTPS=false",
      ].join("\n"),
    );
    expect(result.stderr).toBe("");
    await expect(fetch(`${url}/__local/health`)).rejects.toThrow();
  });

  it("stops on SIGINT (Ctrl-C) with 0 and closes the port", async () => {
    const run = startCli(["dev-idp", "--port", "0", "--in-memory"]);
    const [, url] = await run.waitFor(LISTENING);
    run.child.kill("SIGINT");
    expect(await run.exited).toMatchObject({ code: 0, stderr: "" });
    await expect(fetch(`${url}/__local/health`)).rejects.toThrow();
  });

  it("stops by itself when its parent goes away (npm's shell killed by SIGTERM leaves it orphaned)", async () => {
    // A shell starts the provider in the background, then exits while it runs: the provider is orphaned.
    const shell = spawn(
      "sh",
      ["-c", `"${process.execPath}" "${MAIN}" dev-idp --port 0 --in-memory > "${log}" 2>&1 & echo $!; read _`],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    let pid = "";
    shell.stdout.on("data", (chunk) => {
      pid += chunk;
    });
    const listening = await waitForFile(log, LISTENING);
    expect((await fetch(`${listening[1]}/__local/health`)).status).toBe(200);
    shell.stdin.end("\n"); // the shell's `read` returns and the shell exits; the provider lives on, orphaned
    await once(shell, "exit");
    const child = Number(pid.trim());
    expect(alive(child)).toBe(true);
    await waitUntil(() => !alive(child), 10_000);
    await expect(fetch(`${listening[1]}/__local/health`)).rejects.toThrow();
  }, 20_000);

  it("receives signed security events with LOCAL_IDP_SECURITY_EVENTS_SECRET and never prints it", async () => {
    const secret = "dev-idp-security-events-secret-0123456789";
    const run = startCli(["dev-idp", "--port", "0", "--in-memory"], {
      env: { LOCAL_IDP_SECURITY_EVENTS_SECRET: secret },
    });
    const [, receiver] = await run.waitFor(/security events are received at (\S+)/);
    const body = JSON.stringify({ id: "evt_cli", userId: "user_cli", type: "session.new_device", at: Date.now() });
    const res = await fetch(receiver!, {
      method: "POST",
      headers: {
        "Gatehouse-Signature": await signSecurityEvent(body, secret, Date.now()),
        "Gatehouse-Event-Id": "evt_cli",
      },
      body,
    });
    expect(await res.json()).toEqual({ received: true, duplicate: false });
    run.child.kill("SIGTERM");
    const result = await run.exited;
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it("keeps its directory in the project's .wrangler/state, or --directory-file, or nowhere with --in-memory", async () => {
    const cwd = tempDir();
    const changeRole = async (url: string) => {
      const res = await fetch(`${url}/__local/memberships/om_01ADAACME00000000000000000/role`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ role: "member" }),
      });
      expect(res.status).toBe(200);
    };
    const adaRole = async (url: string) => {
      const body = (await (await fetch(`${url}/__local/directory`)).json()) as {
        memberships: { id: string; role: { slug: string } }[];
      };
      return body.memberships.find((m) => m.id === "om_01ADAACME00000000000000000")?.role.slug;
    };
    const run = async (args: string[]) => {
      const running = startCli(["dev-idp", "--port", "0", ...args], { cwd });
      const [, url] = await running.waitFor(LISTENING);
      return { running, url: url! };
    };

    const first = await run([]);
    expect(await first.running.waitFor(/the directory is kept in (\S+)/)).toContain(
      ".wrangler/state/local-idp/directory.json",
    );
    await changeRole(first.url);
    first.running.child.kill("SIGTERM");
    expect((await first.running.exited).code).toBe(0);
    const saved = readFileSync(join(cwd, ".wrangler/state/local-idp/directory.json"), "utf8");
    expect(saved).toContain('"role": "member"');

    const again = await run([]);
    expect(await adaRole(again.url)).toBe("member");
    again.running.child.kill("SIGTERM");
    await again.running.exited;

    const other = await run(["--directory-file", "other.json"]);
    expect(await adaRole(other.url)).toBe("admin");
    await changeRole(other.url);
    other.running.child.kill("SIGTERM");
    await other.running.exited;
    expect(readFileSync(join(cwd, "other.json"), "utf8")).toContain('"role": "member"');

    const memory = await run(["--in-memory"]);
    await memory.running.waitFor(/the directory is kept in memory only/);
    expect(await adaRole(memory.url)).toBe("admin");
    memory.running.child.kill("SIGTERM");
    await memory.running.exited;
  });

  it("reports a corrupt directory file in one line and serves the demo directory", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "broken.json"), "{ not json");
    const run = startCli(["dev-idp", "--port", "0", "--directory-file", "broken.json"], { cwd });
    const [, url] = await run.waitFor(LISTENING);
    expect((await fetch(`${url}/__local/health`)).status).toBe(200);
    run.child.kill("SIGTERM");
    const result = await run.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `local-idp: ignoring the saved directory ${join(cwd, "broken.json")}: it is not JSON; using the demo directory\n`,
    );
  });

  it("names a taken port in one line and exits 1 without a stack trace", async () => {
    const port = await occupiedPort();
    const result = await runCli(["dev-idp", "--port", String(port)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`gatehouse-workers: port ${port} is already in use (is another dev-idp running?)\n`);
    expect(result.stderr).not.toContain(STACK_LINE);
  });

  it("refuses a webhook URL without its secret with a usage error (exit 2)", async () => {
    const result = await runCli(["dev-idp", "--port", "0", "--webhook-url", "http://127.0.0.1:8787/webhooks/identity"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^gatehouse-workers: a webhook needs both a URL and a secret/);
    expect(result.stderr).not.toContain(STACK_LINE);
  });
});

describe("idpOptionsFrom", () => {
  it("defaults to the provider's defaults on loopback", () => {
    expect(idpOptionsFrom({}, {})).toEqual({
      port: 8788,
      host: "127.0.0.1",
      apiKey: "sk_test_local",
      clientId: "client_local",
      redirectOrigins: [],
    });
  });

  it("reads LOCAL_IDP_* and lets flags win", () => {
    const env = {
      LOCAL_IDP_PORT: "9100",
      LOCAL_IDP_HOST: "127.0.0.2",
      LOCAL_IDP_API_KEY: "sk_test_other",
      LOCAL_IDP_CLIENT_ID: "client_other",
      LOCAL_IDP_PUBLIC_URL: "http://idp.localhost:9100",
      LOCAL_IDP_REDIRECT_ORIGINS: "https://a.example.com, https://b.example.com",
      LOCAL_IDP_WEBHOOK_URL: "http://127.0.0.1:1/webhooks/identity",
      LOCAL_IDP_WEBHOOK_SECRET: "from-env",
      LOCAL_IDP_SECURITY_EVENTS_SECRET: "events-from-env",
    };
    expect(idpOptionsFrom({}, env)).toMatchObject({
      port: 9100,
      host: "127.0.0.2",
      apiKey: "sk_test_other",
      clientId: "client_other",
      publicUrl: "http://idp.localhost:9100",
      redirectOrigins: ["https://a.example.com", "https://b.example.com"],
      webhook: { url: "http://127.0.0.1:1/webhooks/identity", secret: "from-env" },
      securityEvents: { secret: "events-from-env" },
    });
    expect(
      idpOptionsFrom(
        {
          port: "0",
          host: "127.0.0.3",
          webhookUrl: "http://127.0.0.1:2/w",
          webhookSecret: "flag",
          securityEventsSecret: "events-flag",
        },
        env,
      ),
    ).toMatchObject({
      port: 0,
      host: "127.0.0.3",
      webhook: { url: "http://127.0.0.1:2/w", secret: "flag" },
      securityEvents: { secret: "events-flag" },
    });
    expect(idpOptionsFrom({}, { LOCAL_IDP_SECURITY_EVENTS_SECRET: "  " })).not.toHaveProperty("securityEvents");
  });

  it("refuses a bad port, a half webhook and a malformed URL", () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err instanceof CliError ? err.code : "other";
      }
      return "none";
    };
    expect(code(() => idpOptionsFrom({ port: "http" }, {}))).toBe("usage");
    expect(code(() => idpOptionsFrom({}, { LOCAL_IDP_PORT: "70000" }))).toBe("usage");
    expect(code(() => idpOptionsFrom({ webhookSecret: "s" }, {}))).toBe("usage");
    expect(code(() => idpOptionsFrom({ webhookUrl: "not a url", webhookSecret: "s" }, {}))).toBe("usage");
    expect(code(() => idpOptionsFrom({}, { LOCAL_IDP_REDIRECT_ORIGINS: "nope" }))).toBe("usage");
  });
});
