/**
 * The generated project's code and build settings: `src/index.ts` (the auth worker from
 * `createAuthWorker`, with the options a team usually sets shown as comments), `tsconfig.json`
 * and `.gitignore`. Renders text only; never writes a file.
 */

export function renderWorkerSource(): string {
  return `/**
 * The auth worker: hosted login, sessions with instant revocation and rate limits, from
 * gatehouse-workers. Every option has a default; the secrets come from the environment
 * (.dev.vars locally, \`wrangler secret put\` in production), never from this file.
 */
import { createAuthWorker } from "gatehouse-workers/worker";

export default createAuthWorker({
  // Share the session with subdomains (app.example.com, api.example.com). Default: host-only.
  // cookie: { domain: "example.com" },

  // "strict" (default): every request also asks the user's session object, so a revoked session
  // is refused everywhere at once. "eventual": KV only; other locations may accept it for ~60 s.
  // revocation: "strict",

  // Origins that \`return_to\` may name besides this worker's own (default: env AUTH_RETURN_ORIGINS).
  // returnOrigins: ["https://app.example.com"],

  // Route groups, all on by default.
  // routes: { admin: false, home: false },

  // A cap on each user's concurrent sessions (default none): past it, a sign-in signs out the
  // oldest session ("evict-oldest") or is refused ("refuse-new").
  // sessionPolicy: { maxSessions: 5, onLimit: "evict-oldest" },

  // The security timeline (/account/activity, /admin/users/:id/timeline): how long events,
  // devices and revocation receipts are kept. Default 90 days.
  // timeline: { retentionDays: 90 },

  // Observers of sign-in, sign-out and revocation (awaited; a failure is logged, never fatal).
  // hooks: {
  //   onSignIn: ({ userId, organizationId }) => console.log("signed in", userId, organizationId),
  //   onRevoke: ({ userId, scope, revoked }) => console.log("revoked", userId, scope, revoked),
  // },
});

// The Durable Object classes wrangler.jsonc binds, and the entrypoint other workers call
// through a service binding (\`entrypoint = "AuthService"\`).
export { AuthService, OrganizationSessions, RateLimiterDO, UserSessions } from "gatehouse-workers/worker";
`;
}

export function renderTsconfig(): string {
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: "ES2022",
      moduleResolution: "bundler",
      lib: ["es2023"],
      types: ["@cloudflare/workers-types"],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      isolatedModules: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      noEmit: true,
    },
    include: ["src"],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function renderGitignore(): string {
  return ["node_modules/", ".wrangler/", ".dev.vars", "dist/", ""].join("\n");
}
