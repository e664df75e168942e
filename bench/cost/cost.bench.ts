/**
 * Issue 29, cost per user and per request. Each operation runs through the deployed auth worker
 * (bench/cost/worker.ts: its real fetch handler, `AuthService` and Durable Objects over counting
 * bindings) and its billable operations are counted, not estimated: `cost.ops.<operation>.<kind>`
 * (kinds: ledger.ts `KINDS`). `cost.usd_per_million.<operation>` prices them at Cloudflare's
 * Workers Paid list rates (prices.ts, past the allowances; CPU time and Durable Object duration
 * left out, prices.ts says why); `cost.usd_per_million_guarded_requests.{strict,eventual}` and
 * `cost.usd_per_1k_mau_month` (pricing.ts `PROFILE`) follow. None of these has a goal: the issue
 * sets none, so they are recorded with an empty goal (the report shows them, never judges them).
 * The operations, each with what it is and what it checks, are in person-scenarios.ts (per
 * person), device-binding-scenarios.ts (a refresh and a bound session's guarded request, device
 * binding on), ssf-scenarios.ts (a revocation pushed to 1 and to 3 shared-signals streams) and
 * admin-scenarios.ts (per administrative event). `ssf.revocation_cost_ratio_1_stream` is the price
 * of a revocation with one stream over the same without (`revoke_one`), reported.
 */
import { it } from "vitest";
import { record, round } from "../harness";
import { killSwitch, revokeAll, roleChange } from "./admin-scenarios";
import { deviceBinding } from "./device-binding-scenarios";
import { billable, KINDS, type KindCounts } from "./ledger";
import {
  guardedRequests,
  openTab,
  type Results,
  rateLimitChecks,
  revokeOne,
  signIns,
  signInWithQueue,
  slide,
} from "./person-scenarios";
import { mauWithinAllowance, monthlyPerMau, PROFILE, usd } from "./pricing";
import { revokeOneWithStreams } from "./ssf-scenarios";

it("cost per operation, per request and per user", async (ctx) => {
  const results: Results = new Map();
  await signIns(results);
  await signInWithQueue(results);
  await guardedRequests(results, "strict");
  await guardedRequests(results, "eventual");
  await slide(results);
  await revokeOne(results, "strict");
  await revokeOne(results, "eventual");
  await revokeOneWithStreams(results);
  await openTab(results, "strict");
  await openTab(results, "eventual");
  await rateLimitChecks(results);
  await deviceBinding(results);
  await revokeAll(results);
  await roleChange(results);
  await killSwitch(results);

  const kinds = new Map<string, KindCounts>();
  for (const [operation, raw] of results) {
    const counts = billable(raw);
    kinds.set(operation, counts);
    for (const kind of KINDS) {
      record(ctx, `cost.ops.${operation}.${kind}`, { value: round(counts[kind]), unit: "per operation", goal: "" });
    }
    record(ctx, `cost.usd_per_million.${operation}`, { value: round(usd(counts) * 1e6, 4), unit: "USD", goal: "" });
    console.log("cost", operation, JSON.stringify(raw));
  }
  const k = (operation: string) => kinds.get(operation)!;
  record(ctx, "cost.usd_per_million_guarded_requests.strict", {
    value: round(usd(k("guarded_strict_orgs3")) * 1e6, 4),
    unit: "USD",
    goal: "",
  });
  record(ctx, "cost.usd_per_million_guarded_requests.eventual", {
    value: round(usd(k("guarded_eventual_orgs3")) * 1e6, 4),
    unit: "USD",
    goal: "",
  });
  record(ctx, "ssf.revocation_cost_ratio_1_stream", {
    value: round(usd(k("revoke_one_ssf_1_stream")) / usd(k("revoke_one"))),
    unit: "x",
    goal: "reported (revoke_one_ssf_1_stream over revoke_one at list prices: one session revoked, with one enabled shared-signals stream and with none)",
  });
  const strictMonth = monthlyPerMau({
    sign_in: k("sign_in"),
    guarded: k("guarded_strict_orgs3"),
    slide: k("slide"),
    revoke_one: k("revoke_one"),
    tab_open_hour: k("tab_open_hour"),
  });
  const eventualMonth = monthlyPerMau({
    sign_in: k("sign_in_eventual"),
    guarded: k("guarded_eventual_orgs3"),
    slide: k("slide"),
    revoke_one: k("revoke_one_eventual"),
    tab_open_hour: k("tab_open_hour_eventual"),
  });
  record(ctx, "cost.usd_per_1k_mau_month", { value: round(usd(strictMonth) * 1_000, 4), unit: "USD", goal: "" });
  record(ctx, "cost.usd_per_1k_mau_month_eventual", {
    value: round(usd(eventualMonth) * 1_000, 4),
    unit: "USD",
    goal: "",
  });
  record(ctx, "cost.mau_within_workers_paid_allowance", {
    value: mauWithinAllowance(strictMonth),
    unit: "MAU",
    goal: "",
  });
  record(ctx, "cost.mau_within_workers_paid_allowance_eventual", {
    value: mauWithinAllowance(eventualMonth),
    unit: "MAU",
    goal: "",
  });
  console.log("cost profile (per MAU per month)", PROFILE, { strict: strictMonth, eventual: eventualMonth });
});
