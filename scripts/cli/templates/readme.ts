/**
 * The generated project's README.md: run it locally through the local identity provider, deploy
 * it with WorkOS, and bind it from another worker. Renders text only; mentions secrets by name,
 * never by value.
 */

export function renderReadme(name: string): string {
  const fence = "```";
  return `# ${name}

An auth worker made with [gatehouse-workers](https://www.npmjs.com/package/gatehouse-workers):
hosted login (WorkOS AuthKit), server-side sessions with instant revocation and rate limits,
on Cloudflare Workers.

## Run it locally

${fence}sh
npm install
npm run dev
${fence}

\`npm run dev\` checks \`.dev.vars\`, starts the local identity provider (a WorkOS look-alike on
http://127.0.0.1:8788) and serves the worker on http://127.0.0.1:8787. Open
http://127.0.0.1:8787/auth/login: the provider's sign-in page lists demo people; under
**Ada Lovelace** (ada@acme.test) press **Acme · admin** and you are back on http://127.0.0.1:8787/,
signed in. Your sessions are at http://127.0.0.1:8787/account/sessions; the provider's directory
page (http://127.0.0.1:8788/) changes roles and revokes sessions, and tells the worker through
signed webhooks.

\`.dev.vars\` holds fresh local secrets (never commit it; \`.dev.vars.example\` lists the keys).
\`npm run idp\` runs the local identity provider alone. Other ports:
\`npm run dev -- --port 9000 --idp-port 9001\` (your apps' \`AUTH_LOGIN_URL\` then changes too).

## Security events

Each user's security timeline (sign-ins, new devices, sign-outs, revocations and who made them,
refused sessions) is at http://127.0.0.1:8787/account/activity. With \`ADMIN_API_TOKEN\`, operators
read it at \`GET /admin/users/:id/timeline\` and \`GET /admin/users/:id/devices\`, and end every
session of an organization with \`POST /admin/organizations/:id/kill-switch\`. The worker also
sends each event to your app as a signed webhook (\`SECURITY_EVENTS_WEBHOOK_URL\`, signed with
\`SECURITY_EVENTS_WEBHOOK_SECRET\`; verify it with \`verifySecurityEvent\` from
\`gatehouse-workers\`). \`npm run dev\` points it at the local identity provider, whose page
(http://127.0.0.1:8788/) shows the delivered events.

## Deploy

${fence}sh
npx wrangler kv namespace create SESSIONS         # paste the id into wrangler.jsonc
npx wrangler secret put SESSION_SECRET            # ≥ 32 random characters: openssl rand -base64 32
npx wrangler secret put ADMIN_API_TOKEN           # enables /admin/*
npx wrangler secret put IDENTITY_API_KEY          # WorkOS dashboard → API keys
npx wrangler secret put IDENTITY_CLIENT_ID
npx wrangler secret put IDENTITY_WEBHOOK_SECRET   # WorkOS dashboard → Webhooks (below)
npx wrangler secret put SECURITY_EVENTS_WEBHOOK_SECRET   # with SECURITY_EVENTS_WEBHOOK_URL: events to your app
npm run deploy
${fence}

- In WorkOS (AuthKit → Redirects) register \`https://<auth host>/auth/callback\`, and set
  \`AUTH_REDIRECT_URL\` to exactly that URL: \`"vars": { "AUTH_REDIRECT_URL": "https://<auth host>/auth/callback" }\`
  in wrangler.jsonc (\`.dev.vars\` keeps the local one for \`npm run dev\`).
- In WorkOS (Webhooks → Create endpoint) point an endpoint at \`https://<auth host>/webhooks/identity\`
  with \`session.revoked\`, \`user.deleted\` and the \`organization_membership.*\` events; its signing
  secret is \`IDENTITY_WEBHOOK_SECRET\`.
- The worker refuses to serve (a generic 503, the log names the variable) while a secret is
  missing, short or a placeholder, or \`AUTH_REDIRECT_URL\` is \`http:\` off loopback.

## Use it from another worker

Other workers check sessions through this worker's \`AuthService\` entrypoint over a service
binding; they never hold the session secret. From the folder above this project,
\`npx gatehouse-workers init --app my-app --auth <this folder>\`
writes a ready one beside it (its pages guarded, live sign-out, a same-origin sign-out form) and adds
its origin to \`AUTH_RETURN_ORIGINS\` in \`.dev.vars\`, so a sign-in started there comes back to it.
Restart \`npm run dev\` after a change to \`.dev.vars\`: it reads the file only when it starts.

By hand, in the other worker's wrangler config:

${fence}toml
[[services]]
binding = "AUTH"
service = "${name}"
entrypoint = "AuthService"
${fence}

or in \`wrangler.jsonc\`:
\`"services": [{ "binding": "AUTH", "service": "${name}", "entrypoint": "AuthService" }]\`. Then
\`new AuthServiceClient(env.AUTH)\` (from \`gatehouse-workers\`) resolves the request's session.
`;
}
