/**
 * The load leg of `npm run bench` (bench/node/load.bench.ts; `npm run load` runs it alone):
 * Gatehouse under load and across a restart, on loopback only and bounded in requests and time.
 * 5,000 mixed requests at 50 in flight (mixed.ts: sign-in, resolve, guarded page, sign-out, the
 * consumer's rate-limited /api/quota), each simulated person from a /64 of their own; then both
 * workers are restarted on the same persisted state and checked. Returns the `load.*` metrics; it
 * never decides whether a figure is good (the report compares them with their goals).
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { Metric } from "../../tooling/results/index.ts";
import { ADA_ID } from "../local-idp/index.ts";
import { Person, statusOf } from "./client.ts";
import { LEGS, LOAD_USERS, type MixedResult, runMixed, STEPS_PER_PERSON } from "./mixed.ts";
import { startWorld, type World } from "./world.ts";

export const LOAD_REQUESTS = 5_000;
export const LOAD_CONCURRENCY = 50;
/** The consumer's /api/quota policy (workers/example-consumer/quota.ts). */
const QUOTA = { limit: 100, window: 600 };
/**
 * The mixed run and the restart check of the exhausted quota must fall in one fixed window (the
 * windows are aligned to the epoch): with less left than this, wait for the next one.
 */
const WINDOW_MARGIN_S = 60;

export interface LoadOutcome {
  metrics: Record<string, Metric>;
  /** Lines for the log: what ran and what it measured. */
  summary: string[];
}

interface RestartCheck {
  name: string;
  expected: number;
  status: number;
}

/**
 * How often wrangler dev rebuilt the workers so far: it watches the sources, so an edit in the
 * checkout during a run reloads a worker (its requests fail meanwhile), which the summary says.
 */
function reloads(world: World): number {
  let count = 0;
  for (const server of [world.auth, world.consumer]) {
    try {
      count += readFileSync(server.logFile, "utf8").split("Reloading local server").length - 1;
    } catch {
      // no log yet
    }
  }
  return count;
}

/** Seconds left in the current fixed window of `window` seconds. */
function windowLeft(window: number): number {
  const now = Date.now() / 1000;
  return Math.ceil(now / window) * window - now;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function restartChecks(
  world: World,
  alive: Person,
  signedOut: NonNullable<MixedResult["signedOut"]>,
): Promise<RestartCheck[]> {
  return [
    {
      name: "a session created before the restart resolves (/api/me)",
      expected: 200,
      status: await statusOf(`${world.auth.url}/api/me`, alive.cookie, alive.address),
    },
    {
      name: "a session signed out before the restart stays signed out (/api/me)",
      expected: 401,
      status: await statusOf(`${world.auth.url}/api/me`, signedOut.cookie, signedOut.address),
    },
    {
      name: "the rate-limit window still counts: the exhausted user is refused (/api/quota)",
      expected: 429,
      status: await statusOf(`${world.consumer.url}/api/quota`, alive.cookie, alive.address),
    },
  ];
}

/** Starts the world, runs the mixed load and the restart checks, stops everything it started. */
export async function runLoad(log: (line: string) => void): Promise<LoadOutcome> {
  const began = performance.now();
  let world: World | undefined;
  try {
    world = await startWorld(log);
    const w = world;
    // A witness outside the measured requests (address 0; the people use 1 and up): alive across the restart.
    const witness = await Person.signedIn(0, w.auth.url, w.idp.url, ADA_ID);
    await waitFor("the consumer's AUTH binding", async () => {
      return (await statusOf(`${w.consumer.url}/api/me`, witness.cookie, witness.address)) === 200;
    });

    const left = windowLeft(QUOTA.window);
    if (left < WINDOW_MARGIN_S) {
      log(`only ${Math.floor(left)} s left in the current ${QUOTA.window} s quota window: waiting for the next one`);
      await sleep(left * 1000 + 1_000);
    }
    log(`${LOAD_REQUESTS} mixed requests, ${LOAD_CONCURRENCY} in flight, one /64 per person …`);
    const reloadsBefore = reloads(w);
    const mixed = await runMixed(
      {
        authUrl: w.auth.url,
        consumerUrl: w.consumer.url,
        idpUrl: w.idp.url,
        requests: LOAD_REQUESTS,
        concurrency: LOAD_CONCURRENCY,
        firstPerson: 1,
      },
      QUOTA.window,
    );
    for (const leg of LEGS) {
      const s = mixed.legs[leg];
      log(`  ${leg.padEnd(7)} ${String(s.requests).padStart(5)} requests, statuses ${JSON.stringify(s.statuses)}`);
    }
    for (const detail of mixed.errorDetails) log(`  unexpected: ${detail}`);
    const reloaded = reloads(w) - reloadsBefore;
    if (mixed.errors > 0)
      log(`--- auth worker log ---\n${w.auth.tail(40)}\n--- consumer log ---\n${w.consumer.tail(20)}`);

    // Restart both workers on the same persisted state.
    let lost = 0;
    let restartNote = "skipped: no person signed out";
    if (mixed.signedOut) {
      const before = await restartChecks(w, witness, mixed.signedOut);
      const failedBefore = before.filter((c) => c.status !== c.expected);
      if (failedBefore.length > 0) {
        // Nothing to carry across a restart: counted as lost, and said why.
        for (const c of failedBefore) log(`  before restart: ${c.name}: ${c.status} (want ${c.expected})`);
        lost = failedBefore.length;
        restartNote = `skipped: ${lost} check(s) failed before the restart`;
      } else {
        await w.restart();
        const after = await restartChecks(w, witness, mixed.signedOut);
        for (const c of after) log(`  after restart: ${c.name}: ${c.status} (want ${c.expected})`);
        lost = after.filter((c) => c.status !== c.expected).length;
        restartNote = `${after.length - lost}/${after.length} checks held`;
      }
    }

    const admitted = Object.values(mixed.quotaAdmitted).reduce((a, b) => a + b, 0);
    const usersLimited = LOAD_USERS.length;
    const exactness = Math.round((admitted / (usersLimited * QUOTA.limit)) * 1000) / 1000;
    const metrics: Record<string, Metric> = {
      "load.requests": {
        value: mixed.requests,
        unit: "count",
        goal: `reported (${LOAD_REQUESTS.toLocaleString("en-US")} planned, ${LOAD_CONCURRENCY} in flight, ${mixed.people} people)`,
      },
      "load.auth_errors": { value: mixed.errors, unit: "count", goal: "0" },
      "load.rps": { value: Math.round(mixed.requests / mixed.seconds), unit: "requests/s", goal: "reported" },
      "load.p50_ms": { value: mixed.p50, unit: "ms", goal: "reported" },
      "load.p99_ms": { value: mixed.p99, unit: "ms", goal: "reported" },
      "load.ratelimit_limited": {
        value: mixed.legs.quota.statuses["429"] ?? 0,
        unit: "count",
        goal: "reported (429s of /api/quota: expected answers)",
      },
      "load.ratelimit_exactness": {
        value: exactness,
        unit: "x",
        // Two windows admit up to twice the limit: exact, but not comparable with one limit.
        goal: mixed.quotaWindows === 1 ? "= 1.000" : "reported (the run crossed a quota window)",
      },
      "load.restart_lost": { value: lost, unit: "count", goal: "0" },
    };
    for (const leg of LEGS) {
      metrics[`load.${leg}_p99_ms`] = { value: mixed.legs[leg].p99, unit: "ms", goal: "reported" };
    }
    const summary = [
      `${mixed.requests} mixed requests (${mixed.people} people × ${STEPS_PER_PERSON}) at ${LOAD_CONCURRENCY} in flight in ${mixed.seconds.toFixed(1)} s: ` +
        `${mixed.errors} errors, ${Math.round(mixed.requests / mixed.seconds)} requests/s, p50 ${mixed.p50} ms, p99 ${mixed.p99} ms`,
      `/api/quota: ${admitted} admitted for ${usersLimited} users (limit ${QUOTA.limit} each), ${mixed.legs.quota.statuses["429"] ?? 0} × 429`,
      `restart: ${restartNote}`,
      ...(reloaded > 0
        ? [`warning: wrangler dev reloaded a worker ${reloaded} time(s) during the run (a source file changed)`]
        : []),
      `load leg: ${((performance.now() - began) / 1000).toFixed(1)} s in all (wrangler dev start, run, restart)`,
    ];
    return { metrics, summary };
  } catch (err) {
    if (world) log(`--- auth worker log ---\n${world.auth?.tail() ?? ""}`);
    throw err;
  } finally {
    await world?.close();
  }
}
