/**
 * The generated project's `wrangler.jsonc`: the worker, its session KV namespace, the three Durable
 * Object classes and their SQLite migration, a minified deploy with its source maps, and
 * loopback-only `wrangler dev` settings. Comments stand on their own lines and there are no
 * trailing commas, so stripping `//` lines leaves JSON.
 */

/** Wrangler's placeholder id until `npx wrangler kv namespace create SESSIONS` gives a real one. */
export const PLACEHOLDER_KV_ID = "00000000000000000000000000000000";

export const COMPATIBILITY_DATE = "2026-11-01";

export function renderWranglerConfig(name: string): string {
  return `// The auth worker (gatehouse-workers): hosted login, sessions, revocation, rate limits.
// Local: \`npm run dev\` serves it on http://127.0.0.1:8787. Production: see README.md.
{
  "$schema": "node_modules/wrangler/config-schema.json",
  "name": ${JSON.stringify(name)},
  "main": "src/index.ts",
  "compatibility_date": "${COMPATIBILITY_DATE}",
  "compatibility_flags": ["nodejs_compat"],
  "send_metrics": false,
  "observability": { "enabled": true },
  // The deployed bundle is minified (about a third smaller gzipped); its source maps are uploaded
  // with it, so stack traces in the dashboard and in logs still name the original files and lines.
  "minify": true,
  "upload_source_maps": true,
  // Only \`wrangler dev\` reads this: it listens on loopback, never on the network.
  "dev": { "ip": "127.0.0.1", "port": 8787, "local_protocol": "http" },
  // Session records (\`sess:*\`). The id below only works locally: before deploying, create the
  // namespace with \`npx wrangler kv namespace create SESSIONS\` and paste its id here.
  "kv_namespaces": [{ "binding": "SESSIONS", "id": "${PLACEHOLDER_KV_ID}" }],
  "durable_objects": {
    "bindings": [
      // One object per user: mirrors sessions, fans out revocation, holds the live channel.
      { "name": "USER_SESSIONS", "class_name": "UserSessions" },
      // Fixed-window rate limits: one object per limited key.
      { "name": "RATE_LIMITER", "class_name": "RateLimiterDO" },
      // One object per organization: member index, kill switch, session policy.
      { "name": "ORGANIZATIONS", "class_name": "OrganizationSessions" }
    ]
  },
  "migrations": [{ "tag": "v1", "new_sqlite_classes": ["UserSessions", "RateLimiterDO", "OrganizationSessions"] }]
}
`;
}
