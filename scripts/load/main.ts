#!/usr/bin/env node
import { setTimeout as sleep } from "node:timers/promises";
/**
 * `npm run load`: Gatehouse under load and across a restart, on loopback only
 * and bounded in requests and time. 5,000 authenticated GETs of the auth
 * worker's `/api/me` (AuthMiddleware) at concurrency 50; 2,000 GETs of the
 * example consumer's `/api/quota` on one key limited to 100 (DORateLimiter in
 * the auth worker, through AuthService.checkRateLimit); then both workers are
 * restarted on the same persisted state and checked. Writes `load.*` into
 * bench/results/latest.json and prints a table. Exits 1 when a goal is missed.
 */
import { mergeResults, printTable, RESULTS } from "../../tooling/results/index.ts";
import { ADA_ID, ALAN_ID } from "../local-idp/index.ts";
import { authLoad, limitLoad } from "./cannon.ts";
import { adminRevoke, getJson, login, type Session } from "./client.ts";
import { startWorld, type World } from "./world.ts";

const AUTH_REQUESTS = 5_000;
const AUTH_CONNECTIONS = 50;
const LIMIT_REQUESTS = 2_000;
const LIMIT_CONNECTIONS = 50;
/** The consumer's /api/quota policy (workers/example-consumer/quota.ts). */
const QUOTA = { limit: 100, window: 600 };
/** The rate-limit phase and the restart must fall in one fixed window; wait for a fresh one if less is left. */
const WINDOW_MARGIN_S = 75;
const TOTAL_TIMEOUT_MS = 8 * 60_000;

const log = (line: string) => console.log(`load: ${line}`);

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Seconds left in the current fixed window of `window` seconds (windows are aligned to the epoch). */
function windowLeft(window: number): number {
  const now = Date.now() / 1000;
  return Math.ceil(now / window) * window - now;
}

interface RestartCheck {
  name: string;
  expected: number;
  status: number;
}

async function restartChecks(world: World, alive: Session, revoked: Session): Promise<RestartCheck[]> {
  return [
    {
      name: "session created before the restart resolves (/api/me)",
      expected: 200,
      status: (await getJson(`${world.auth.url}/api/me`, alive.cookie)).status,
    },
    {
      name: "session revoked before the restart stays revoked (/api/me)",
      expected: 401,
      status: (await getJson(`${world.auth.url}/api/me`, revoked.cookie)).status,
    },
    {
      name: "rate-limit window still counts: the exhausted key is denied (/api/quota)",
      expected: 429,
      status: (await getJson(`${world.consumer.url}/api/quota`, alive.cookie)).status,
    },
  ];
}

async function run(world: World): Promise<boolean> {
  const ada = await login(world.auth.url, world.idp.url, ADA_ID);
  const alan = await login(world.auth.url, world.idp.url, ALAN_ID);
  log(`signed in ${ada.userId} and ${alan.userId} through /auth/login → local provider → /auth/callback`);
  await waitFor("the consumer's AUTH binding", async () => {
    return (await getJson(`${world.consumer.url}/api/me`, ada.cookie)).status === 200;
  });

  // 1. Authenticated load through AuthMiddleware (KV record + the user's session object, strict mode).
  log(`${AUTH_REQUESTS} GET /api/me (auth worker), ${AUTH_CONNECTIONS} connections …`);
  const auth = await authLoad(`${world.auth.url}/api/me`, ada.cookie, AUTH_REQUESTS, AUTH_CONNECTIONS);
  log(`  statuses ${JSON.stringify(auth.statuses)}, socket errors ${auth.socketErrors}, ${auth.seconds} s`);

  // 2. A revocation to carry across the restart.
  const revokeStatus = await adminRevoke(world.auth.url, world.adminToken, alan.sessionId);
  const afterRevoke = (await getJson(`${world.auth.url}/api/me`, alan.cookie)).status;
  if (revokeStatus !== 200 || afterRevoke !== 401) {
    throw new Error(`admin revocation: DELETE answered ${revokeStatus}, then /api/me ${afterRevoke} (want 200, 401)`);
  }

  // 3. One rate-limited key: Ada's /api/quota, limit 100 per 600 s.
  const left = windowLeft(QUOTA.window);
  if (left < WINDOW_MARGIN_S) {
    log(`only ${Math.floor(left)} s left in the current ${QUOTA.window} s window: waiting for the next one`);
    await sleep(left * 1000 + 1_000);
  }
  log(
    `${LIMIT_REQUESTS} GET /api/quota (consumer → AuthService.checkRateLimit), one key, ${LIMIT_CONNECTIONS} connections …`,
  );
  const limited = await limitLoad(`${world.consumer.url}/api/quota`, ada.cookie, LIMIT_REQUESTS, LIMIT_CONNECTIONS);
  log(`  statuses ${JSON.stringify(limited.statuses)}, ${limited.seconds} s`);

  // 4. Restart both workers on the same persisted state.
  const before = await restartChecks(world, ada, alan);
  const failedBefore = before.filter((c) => c.status !== c.expected);
  if (failedBefore.length > 0) throw new Error(`checks fail before the restart: ${JSON.stringify(failedBefore)}`);
  await world.restart();
  const after = await restartChecks(world, ada, alan);
  for (const c of after) log(`  after restart: ${c.name}: ${c.status} (want ${c.expected})`);
  const lost = after.filter((c) => c.status !== c.expected).length;

  const metrics = {
    "load.auth_errors": { value: auth.errors, unit: "count", goal: "= 0" },
    "load.auth_p50_ms": { value: auth.p50, unit: "ms", goal: "reported" },
    "load.auth_p99_ms": { value: auth.p99, unit: "ms", goal: "reported" },
    "load.ratelimit_admitted": { value: limited.admitted, unit: "count", goal: `= ${QUOTA.limit}` },
    "load.restart_lost": { value: lost, unit: "count", goal: "= 0" },
  };
  mergeResults(metrics);
  printTable(metrics);
  console.log(
    `\n${AUTH_REQUESTS} × /api/me at ${AUTH_CONNECTIONS} connections: ${auth.errors} errors, p50 ${auth.p50} ms, p99 ${auth.p99} ms, ${Math.round(AUTH_REQUESTS / auth.seconds)} requests/s` +
      `\n${LIMIT_REQUESTS} × /api/quota on one key (limit ${QUOTA.limit}): ${limited.admitted} admitted, ${limited.limited} × 429, ${limited.errors} errors` +
      `\nrestart: ${after.length - lost}/${after.length} checks held\nwrote ${RESULTS}`,
  );
  return auth.errors === 0 && limited.admitted === QUOTA.limit && limited.errors === 0 && lost === 0;
}

let world: World | undefined;
let closing: Promise<void> | undefined;
const shutdown = () => (closing ??= world?.close() ?? Promise.resolve());
for (const name of ["SIGINT", "SIGTERM"] as const) {
  process.once(name, () => {
    void shutdown().then(() => process.exit(130));
  });
}
const timer = setTimeout(() => {
  console.error(`load: gave up after ${TOTAL_TIMEOUT_MS / 1000} s`);
  void shutdown().then(() => process.exit(2));
}, TOTAL_TIMEOUT_MS);

let ok = false;
try {
  world = await startWorld(log);
  ok = await run(world);
} catch (err) {
  console.error("load: failed:", err instanceof Error ? err.message : err);
  if (world) console.error(`--- auth worker log ---\n${world.auth?.tail() ?? ""}`);
} finally {
  await shutdown();
  clearTimeout(timer);
}
process.exit(ok ? 0 : 1);
