// `npm run consumer` (scripts/consumer.mjs), issue 19: the example consumer under wrangler dev with
// CLOUDFLARE_CF_FETCH_ENABLED=false, so an offline start prints no DNS stack traces (miniflare
// would fetch `Request.cf` from workers.cloudflare.com). The script runs in a temp copy of the
// repository's layout (sources and node_modules linked in, its own .dev.vars), so the repository's
// files are never touched: once with a stand-in wrangler that records how it was started, once
// with the real one.
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, REPO_ROOT, STACK_LINE, tempDir } from "./helpers.ts";

const CONSUMER = "workers/example-consumer";

/** A temp root with scripts/consumer.mjs, scripts/cli linked in, and the consumer's .dev.vars example. */
function consumerRoot(options: { sources: boolean }): string {
  const root = tempDir();
  mkdirSync(join(root, "scripts"));
  copyFileSync(join(REPO_ROOT, "scripts/consumer.mjs"), join(root, "scripts/consumer.mjs"));
  symlinkSync(join(REPO_ROOT, "scripts/cli"), join(root, "scripts/cli"), "dir");
  mkdirSync(join(root, CONSUMER), { recursive: true });
  copyFileSync(join(REPO_ROOT, CONSUMER, ".dev.vars.example"), join(root, CONSUMER, ".dev.vars.example"));
  if (options.sources) {
    // The consumer's sources and what its wrangler.toml aliases point at, and the real wrangler.
    for (const name of readdirSync(join(REPO_ROOT, CONSUMER))) {
      if (!name.startsWith(".dev.vars")) symlinkSync(join(REPO_ROOT, CONSUMER, name), join(root, CONSUMER, name));
    }
    for (const dir of ["client-sdk", "durable-objects", "workers/auth", "workers/entries", "node_modules"]) {
      symlinkSync(join(REPO_ROOT, dir), join(root, dir), "dir");
    }
  }
  return root;
}

/** A stand-in wrangler that writes its arguments and the two variables to wrangler-call.json, then exits 3. */
function installFakeWrangler(root: string): void {
  const bin = join(root, "node_modules/wrangler/bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "wrangler.js"),
    `require("node:fs").writeFileSync("wrangler-call.json", JSON.stringify({ args: process.argv.slice(2),
  cf: process.env.CLOUDFLARE_CF_FETCH_ENABLED, metrics: process.env.WRANGLER_SEND_METRICS }));
process.exit(3);
`,
  );
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function runConsumer(root: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Run {
  const inherited = { ...process.env };
  delete inherited.CLOUDFLARE_CF_FETCH_ENABLED; // whatever the developer's shell says, the script decides
  delete inherited.NODE_ENV; // Vitest's "test" would make miniflare skip the fetch by itself
  const child = spawn(process.execPath, [join(root, "scripts/consumer.mjs"), ...args], {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: string) => {
    output += chunk;
  };
  child.stdout?.setEncoding("utf8").on("data", keep);
  child.stderr?.setEncoding("utf8").on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe.skipIf(process.platform === "win32")("npm run consumer", () => {
  it("runs the project's wrangler dev on the consumer's config with Request.cf fetching and metrics off", async () => {
    const root = consumerRoot({ sources: false });
    installFakeWrangler(root);
    const run = runConsumer(root, ["--port", "9001"]);
    expect(await run.exited).toBe(3);
    const call = JSON.parse(readFileSync(join(root, "wrangler-call.json"), "utf8")) as Record<string, unknown>;
    expect(call).toEqual({
      args: ["dev", "-c", `${CONSUMER}/wrangler.toml`, "--show-interactive-dev-session=false", "--port", "9001"],
      cf: "false",
      metrics: "false",
    });
    // First run: the consumer's .dev.vars from its example (AUTH_LOGIN_URL of the local auth worker).
    expect(readFileSync(join(root, CONSUMER, ".dev.vars"), "utf8")).toBe(
      readFileSync(join(root, CONSUMER, ".dev.vars.example"), "utf8"),
    );
    expect(run.output()).toContain("created workers/example-consumer/.dev.vars");
  });

  it("without wrangler installed says so in one line", async () => {
    const run = runConsumer(consumerRoot({ sources: false }), []);
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(
      /^gatehouse: created .*\ngatehouse: wrangler is not installed in .*npm install first\n$/,
    );
  });

  it("starts the consumer with the real wrangler without DNS errors or stack traces", async () => {
    const root = consumerRoot({ sources: true });
    const port = await freePort();
    const run = runConsumer(root, ["--port", String(port), "--persist-to", join(root, "state")], {
      WRANGLER_REGISTRY_PATH: join(root, "registry"),
      WRANGLER_LOG_PATH: join(root, "logs"),
      FORCE_COLOR: "0",
    });
    const deadline = Date.now() + 60_000;
    while (!run.output().includes(`Ready on http://127.0.0.1:${port}`)) {
      if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`not ready:\n${run.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A request answered (whatever the page says without the auth worker running).
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect((await res.text()).length).toBeGreaterThan(0);
    run.child.kill("SIGTERM");
    await run.exited;
    expect(run.output()).not.toMatch(/getaddrinfo|ENOTFOUND|Unable to fetch the `Request.cf`/);
    expect(run.output()).not.toContain(STACK_LINE);
    expect(existsSync(join(root, CONSUMER, ".dev.vars"))).toBe(true);
  });
});
