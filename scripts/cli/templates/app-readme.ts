/**
 * An app worker's README.md: run it beside the auth worker, what guards what, sign-out, and
 * deploying it. Renders text only; names no secret.
 */
import { localAppOrigin } from "./app-config.ts";

export interface AppReadmeInput {
  name: string;
  authName: string;
  port: number;
  /** The auth worker's local origin, e.g. `http://127.0.0.1:8787`. */
  authOrigin: string;
}

export function renderAppReadme(input: AppReadmeInput): string {
  const fence = "```";
  const origin = localAppOrigin(input.port);
  return `# ${input.name}

An app worker made with [gatehouse-workers](https://www.npmjs.com/package/gatehouse-workers): its
pages and API are guarded by the auth worker \`${input.authName}\`, which it asks about every session
over the service binding \`AUTH\` (the auth worker's \`AuthService\` entrypoint). It holds none of
the auth worker's secrets.

## Run it locally

With the auth worker's \`npm run dev\` running (${input.authOrigin}):

${fence}sh
npm install
npm run dev
${fence}

Open ${origin}/: without a session you are sent to the auth worker's sign-in
(\`AUTH_LOGIN_URL\` in \`.dev.vars\`) and come back here, signed in. Use \`127.0.0.1\`, not
\`localhost\`: the session cookie belongs to the auth worker's host. The way back works because
the auth worker's \`AUTH_RETURN_ORIGINS\` (its \`.dev.vars\`) lists ${origin}; it reads that file
only when its \`npm run dev\` starts.

- \`/\` is a page for signed-in people, with the live channel (\`live: true\`): revoke the session
  on the auth worker (${input.authOrigin}/account/sessions) and the open tab is signed out at once.
- \`/api/me\` answers JSON; without a session, \`401 { "error": "unauthenticated" }\`.
- The **Sign out** button posts to this app's own \`/logout\`, which revokes the session at the auth
  worker; a post from another site is refused (403), any other method answers 405.

\`npm run dev -- --port 9000\` moves it for one run; keep the port in \`wrangler.jsonc\` and the
auth worker's \`AUTH_RETURN_ORIGINS\` in step when you move it for good.

## Deploy

Deploy the auth worker first, then add its login URL to \`wrangler.jsonc\` and deploy this one:

${fence}jsonc
"vars": { "AUTH_LOGIN_URL": "https://<auth host>/auth/login" },
${fence}

${fence}sh
npm run deploy
${fence}

The session cookie reaches this app when both are on one host (the auth worker on a route such as
\`app.example.com/auth/*\`) or when the auth worker shares it with subdomains
(\`cookie: { domain: "example.com" }\` in its \`src/index.ts\`). List this app's origin in the
auth worker's \`AUTH_RETURN_ORIGINS\` (\`"vars"\` of its \`wrangler.jsonc\`).
`;
}
