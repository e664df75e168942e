/** harness.selfcheck_ratio: the harness comparing a handler with itself; should read 1.00. */
import { it } from "vitest";
import { ratio, record } from "../harness";

it("harness.selfcheck_ratio", async (ctx) => {
  const bare = async (_request: Request) => new Response("hello");
  const run = async () => (await bare(new Request("http://x/hello"))).text();
  const result = await ratio(run, run);
  record(ctx, "harness.selfcheck_ratio", { value: result.ratio, unit: "x", goal: "1.00 ± 0.05" });
});
