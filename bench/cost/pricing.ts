/**
 * @module
 * Counts × prices. `usd` prices one operation's billable kinds at the list rates past the
 * allowances (the marginal cost; the $5 plan and its allowances are apart); `monthlyPerMau` sums
 * the usage profile; `mauWithinAllowance` says how many such people the $5 plan's allowances
 * cover. CPU time and Durable Object duration are not in any figure (prices.ts says why). Pure:
 * it never measures anything.
 */
import type { KindCounts } from "./ledger";
import { KINDS } from "./ledger";
import { PRICES, type PricedKind } from "./prices";

const priceOf = (kind: PricedKind) => PRICES.find((p) => p.kind === kind)!;

/** US dollars for these counts at the list rates past the plan's allowances. */
export function usd(counts: KindCounts): number {
  let total = 0;
  for (const price of PRICES) {
    if (price.kind) total += (counts[price.kind] * price.usd) / price.per;
  }
  return total;
}

/**
 * What one monthly active person does in a month (the profile the README states). Guarded
 * requests are those of a session with three organizations in a warm isolate (the epoch cache
 * holds), the costlier of the measured shapes. Rate-limit checks are those the sign-in and the
 * live channel make themselves; administrative events (revoke all, role change, kill switch) are
 * per event, not per person.
 */
export const PROFILE = {
  /** Sign-ins of a returning person (once a week). */
  sign_in: 4,
  /** Requests to guarded pages and APIs: 50 on each of 20 active days. */
  guarded: 1_000,
  /** Sliding refreshes: at most one per session per hour of activity, 2 hours on each active day. */
  slide: 40,
  /** One session ended by the person (a sign-out). */
  revoke_one: 1,
  /** A live tab open for an hour on each active day (hibernated socket). */
  tab_open_hour: 20,
} as const;

export type ProfileStep = keyof typeof PROFILE;

/** The billable kinds of one person's month: each step's counts × how often the profile does it. */
export function monthlyPerMau(steps: Record<ProfileStep, KindCounts>): KindCounts {
  const out = Object.fromEntries(KINDS.map((k) => [k, 0])) as KindCounts;
  for (const step of Object.keys(PROFILE) as ProfileStep[]) {
    for (const kind of KINDS) out[kind] += steps[step][kind] * PROFILE[step];
  }
  return out;
}

/** How many people of `perMau` the Workers Paid plan's monthly allowances cover (the first kind to run out decides). */
export function mauWithinAllowance(perMau: KindCounts): number {
  let covered = Number.POSITIVE_INFINITY;
  for (const price of PRICES) {
    if (!price.kind || price.includedPerMonth === null || perMau[price.kind] === 0) continue;
    covered = Math.min(covered, price.includedPerMonth / perMau[price.kind]);
  }
  return Math.floor(covered);
}

/** Which priced kind runs out first for `perMau` (the allowance that bounds `mauWithinAllowance`). */
export function firstAllowanceToRunOut(perMau: KindCounts): PricedKind | null {
  let first: PricedKind | null = null;
  let covered = Number.POSITIVE_INFINITY;
  for (const price of PRICES) {
    if (!price.kind || price.includedPerMonth === null || perMau[price.kind] === 0) continue;
    const n = price.includedPerMonth / perMau[price.kind];
    if (n < covered) {
      covered = n;
      first = price.kind;
    }
  }
  return first;
}

export { priceOf };
