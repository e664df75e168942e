/**
 * The load leg of `npm run bench`: 5,000 mixed requests at 50 in flight against `wrangler dev`
 * (sign-in, resolve, guarded page, sign-out, the consumer's rate-limited /api/quota), each
 * simulated person from a /64 of their own, then a restart on the same state (scripts/load/run.ts).
 * Records `load.*`; the reporter writes them with every other metric and the HTML report.
 */
import { it } from "vitest";
import { runLoad } from "../../scripts/load/run.ts";
import { record } from "../harness";

it("load: 5,000 mixed requests at 50 in flight against wrangler dev, then a restart", async (ctx) => {
  const { metrics, summary } = await runLoad((line) => console.log(`load: ${line}`));
  for (const [name, metric] of Object.entries(metrics)) record(ctx, name, metric);
  console.log(summary.map((line) => `load: ${line}`).join("\n"));
});
