// The contents of a project made by `init`: wrangler.jsonc parses once its comments go and binds
// what the auth worker needs, the worker module exports its classes, and the committed example
// of .dev.vars holds the same keys with placeholders the worker's rules refuse. And of an app made
// by `init --app`: bound to the auth worker, guarded pages with the live channel, a same-origin
// sign-out, the auth worker's runtime, a quiet `npm run dev` on its own port.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkDevVars } from "../../scripts/cli/config-check.ts";
import { parseDevVars } from "../../scripts/cli/dev-vars.ts";
import { initProject } from "../../scripts/cli/init.ts";
import { initAppProject } from "../../scripts/cli/init-app.ts";
import { PROJECT_TOOLS } from "../../scripts/cli/templates/package-json.ts";
import { COMPATIBILITY_DATE } from "../../scripts/cli/templates/wrangler-config.ts";
import { checkAuthEnvironment } from "../../workers/auth/config/rules.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "./helpers.ts";

interface WranglerConfig {
  name: string;
  main: string;
  compatibility_date: string;
  compatibility_flags: string[];
  kv_namespaces: { binding: string; id: string }[];
  durable_objects: { bindings: { name: string; class_name: string }[] };
  migrations: { tag: string; new_sqlite_classes: string[] }[];
  dev: Record<string, unknown>;
  send_metrics: boolean;
  observability: { enabled: boolean };
  minify: boolean;
  upload_source_maps: boolean;
}

/** JSONC without its comments: whole `//` lines and trailing `//` outside strings. */
function stripComments(text: string): string {
  return text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*/g, (_, string: string | undefined) => string ?? "");
}

let dir = "";
const read = (path: string) => readFileSync(join(dir, path), "utf8");

describe("the generated project", () => {
  beforeAll(() => {
    const root = makeTempDir();
    dir = initProject(join(root, "edge-auth"), {}, { nodeVersion: "24.11.0" }).dir;
    return () => removeDir(root);
  });

  it("wrangler.jsonc parses and declares the worker, its bindings and the migration", () => {
    const config = JSON.parse(stripComments(read("wrangler.jsonc"))) as WranglerConfig;
    expect(config).toMatchObject({
      name: "edge-auth",
      main: "src/index.ts",
      compatibility_date: "2026-11-01",
      compatibility_flags: ["nodejs_compat"],
      send_metrics: false,
      observability: { enabled: true },
      minify: true,
      upload_source_maps: true,
      dev: { ip: "127.0.0.1", port: 8787, local_protocol: "http" },
    });
    expect(config.kv_namespaces).toEqual([{ binding: "SESSIONS", id: "00000000000000000000000000000000" }]);
    expect(config.durable_objects.bindings).toEqual([
      { name: "USER_SESSIONS", class_name: "UserSessions" },
      { name: "RATE_LIMITER", class_name: "RateLimiterDO" },
      { name: "ORGANIZATIONS", class_name: "OrganizationSessions" },
    ]);
    expect(config.migrations).toEqual([
      { tag: "v1", new_sqlite_classes: ["UserSessions", "RateLimiterDO", "OrganizationSessions"] },
    ]);
    expect(read("wrangler.jsonc")).toContain("npx wrangler kv namespace create SESSIONS");
    expect(read("wrangler.jsonc")).toContain(
      '// One object per organization: member index, kill switch, session policy.\n      { "name": "ORGANIZATIONS"',
    );
  });

  it("src/index.ts builds the worker and exports the classes wrangler.jsonc binds", () => {
    const source = read("src/index.ts");
    expect(source).toContain('import { createAuthWorker } from "gatehouse-workers/worker";');
    expect(source).toMatch(/^export default createAuthWorker\(\{$/m);
    expect(source).toContain(
      'export { AuthService, OrganizationSessions, RateLimiterDO, UserSessions } from "gatehouse-workers/worker";',
    );
    for (const option of [
      "cookie:",
      "revocation:",
      "returnOrigins:",
      "routes:",
      "hooks:",
      "sessionPolicy:",
      "timeline:",
    ]) {
      expect(source).toMatch(new RegExp(`^\\s*// ${option}`, "m"));
    }
    expect(source).toContain('// sessionPolicy: { maxSessions: 5, onLimit: "evict-oldest" },');
    expect(source).toContain("// timeline: { retentionDays: 90 },");
  });

  it("tsconfig.json is strict and typed for Workers", () => {
    const tsconfig = JSON.parse(read("tsconfig.json")) as {
      compilerOptions: Record<string, unknown>;
      include: string[];
    };
    expect(tsconfig.compilerOptions).toMatchObject({
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      module: "ES2022",
      target: "ES2022",
      moduleResolution: "bundler",
      types: ["@cloudflare/workers-types"],
      lib: ["es2023"],
      noEmit: true,
    });
    expect(tsconfig.include).toEqual(["src"]);
  });

  it(".dev.vars.example has the keys of .dev.vars, with placeholders the worker refuses", () => {
    const real = parseDevVars(read(".dev.vars"));
    const example = parseDevVars(read(".dev.vars.example"));
    expect(Object.keys(example)).toEqual(Object.keys(real));
    for (const name of [
      "SESSION_SECRET",
      "ADMIN_API_TOKEN",
      "IDENTITY_WEBHOOK_SECRET",
      "SECURITY_EVENTS_WEBHOOK_SECRET",
    ]) {
      expect(example[name]).toBe("__RANDOM__");
    }
    expect(checkAuthEnvironment(example).ok).toBe(false);
    expect(checkDevVars({ ...real, SECURITY_EVENTS_WEBHOOK_SECRET: "__RANDOM__" })).toEqual({
      ok: false,
      problems: [{ variable: "SECURITY_EVENTS_WEBHOOK_SECRET", rule: "placeholder" }],
    });
    expect(read(".dev.vars")).toMatch(/real WorkOS|WorkOS credentials/);
  });

  it(".gitignore keeps secrets and build output out of git", () => {
    expect(read(".gitignore").split("\n")).toEqual(
      expect.arrayContaining(["node_modules/", ".wrangler/", ".dev.vars", "dist/"]),
    );
  });

  it("README.md covers local sign-in, deployment and the service binding", () => {
    const readme = read("README.md");
    for (const text of [
      "npm install",
      "npm run dev",
      "http://127.0.0.1:8787/auth/login",
      "npx wrangler kv namespace create SESSIONS",
      "npx wrangler secret put SESSION_SECRET",
      "npm run deploy",
      'service = "edge-auth"',
      'entrypoint = "AuthService"',
      "## Security events",
      "/account/activity",
      "`GET /admin/users/:id/timeline`",
      "`GET /admin/users/:id/devices`",
      "`POST /admin/organizations/:id/kill-switch`",
      "(http://127.0.0.1:8788/) shows the delivered events",
      // The local provider's page as it is: the person, then a button per organization.
      "under\n**Ada Lovelace** (ada@acme.test) press **Acme · admin**",
      "`npm run dev -- --port 9000 --idp-port 9001`",
      "`npx gatehouse-workers init --app my-app --auth <this folder>`",
      "Restart `npm run dev` after a change to `.dev.vars`",
    ]) {
      expect(readme).toContain(text);
    }
  });
});

describe("the generated project's tools", () => {
  it("are the versions this package is tested with (the repository's devDependencies and compatibility date)", () => {
    const repo = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    expect(PROJECT_TOOLS.wrangler).toBe(repo.devDependencies.wrangler);
    expect(PROJECT_TOOLS["@cloudflare/workers-types"]).toBe(repo.devDependencies["@cloudflare/workers-types"]);
    // The package test type-checks the fixtures with TypeScript 5.9 (and the repository's 7).
    expect(PROJECT_TOOLS.typescript).toBe("^5.9.0");
    const rootConfig = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");
    expect(rootConfig).toContain(`compatibility_date = "${COMPATIBILITY_DATE}"`);
  });
});

describe("the generated app project", () => {
  let app = "";
  const readApp = (path: string) => readFileSync(join(app, path), "utf8");

  beforeAll(() => {
    const root = makeTempDir();
    const auth = initProject(join(root, "edge-auth"), {}, { nodeVersion: "24.11.0" }).dir;
    app = initAppProject(join(root, "shop"), auth, { port: 8790 }, { nodeVersion: "24.11.0" }).dir;
    return () => removeDir(root);
  });

  it("wrangler.jsonc binds AUTH to the auth worker's AuthService, on the auth worker's runtime, served on its port", () => {
    const config = JSON.parse(stripComments(readApp("wrangler.jsonc"))) as Record<string, unknown>;
    expect(config).toEqual({
      $schema: "node_modules/wrangler/config-schema.json",
      name: "shop",
      main: "src/index.ts",
      compatibility_date: COMPATIBILITY_DATE,
      send_metrics: false,
      observability: { enabled: true },
      minify: true,
      upload_source_maps: true,
      dev: { ip: "127.0.0.1", port: 8790, local_protocol: "http" },
      services: [{ binding: "AUTH", service: "edge-auth", entrypoint: "AuthService" }],
    });
    // No nodejs_compat: the app's bundle has no node: code (no WorkOS SDK).
    expect(readApp("wrangler.jsonc")).toContain(
      '// "vars": { "AUTH_LOGIN_URL": "https://auth.example.com/auth/login" },',
    );
  });

  it("src/index.ts guards an HTML page (live, its ticket route mounted) and a JSON API, and signs out on its own origin", () => {
    const source = readApp("src/index.ts");
    expect(source).toContain("new ServiceAuthMiddleware(auth, { loginUrl, live: true })");
    expect(source).toContain('app.hono.use("/", page);');
    expect(source).toContain("app.hono.use(DEFAULT_TICKET_PATH, page);");
    expect(source).toContain(
      'app.hono.use("/api/*", toHono(new ServiceAuthMiddleware(auth, { loginUrl, api: true })));',
    );
    // The live script goes only into HTML, so the page must be HTML.
    expect(source).toMatch(/return c\.html\(\n\s+renderPage\(/);
    expect(source).toContain('signOut: { action: "/logout" }');
    expect(source).toContain('app.hono.all("/logout", (c) => logout.handle(c.req.raw));');
    expect(source).toContain("new SecurityHeadersMiddleware()");
    expect(source).not.toMatch(/SESSION_SECRET|ADMIN_API_TOKEN|gatehouse-workers\/(auth|worker)/);
  });

  it(".dev.vars points at the auth worker's login page, and .env keeps wrangler dev offline-quiet", () => {
    expect(parseDevVars(readApp(".dev.vars"))).toEqual({ AUTH_LOGIN_URL: "http://127.0.0.1:8787/auth/login" });
    expect(parseDevVars(readApp(".dev.vars.example"))).toEqual(parseDevVars(readApp(".dev.vars")));
    expect(parseDevVars(readApp(".env"))).toEqual({ CLOUDFLARE_CF_FETCH_ENABLED: "false" });
    expect(readApp(".gitignore").split("\n")).toEqual(
      expect.arrayContaining(["node_modules/", ".wrangler/", ".dev.vars"]),
    );
  });

  it("tsconfig.json is the auth worker's strict one, and README.md says how it runs beside the auth worker", () => {
    const tsconfig = JSON.parse(readApp("tsconfig.json")) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ strict: true, exactOptionalPropertyTypes: true, noEmit: true });
    const readme = readApp("README.md");
    for (const text of [
      "# shop",
      "auth worker `edge-auth`",
      "With the auth worker's `npm run dev` running (http://127.0.0.1:8787)",
      "Open http://127.0.0.1:8790/",
      "lists http://127.0.0.1:8790; it reads that file\nonly when its `npm run dev` starts",
      '"vars": { "AUTH_LOGIN_URL": "https://<auth host>/auth/login" },',
    ]) {
      expect(readme).toContain(text);
    }
  });
});
