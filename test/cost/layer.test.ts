// The cost bench's counting layer (bench/cost): each call through a counting binding lands in the
// ledger exactly once, with the count the platform bills, and still reaches the real local binding
// unchanged; the billed kinds follow the documented ratios; prices multiply as prices.ts says.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countedEnv, countedKV, countedNamespace, countedQueue, countedService } from "../../bench/cost/bindings";
import { between, billable, KINDS, type KindCounts, ledger, type RawCounts } from "../../bench/cost/ledger";
import { PRICES } from "../../bench/cost/prices";
import { mauWithinAllowance, monthlyPerMau, PROFILE, usd } from "../../bench/cost/pricing";

/** The raw counts of `run` (awaited). */
async function counted(run: () => Promise<unknown>): Promise<RawCounts> {
  const before = ledger.snapshot();
  await run();
  return between(before, ledger.snapshot());
}

/** Only the counters that moved. */
const moved = (counts: RawCounts) => Object.fromEntries(Object.entries(counts).filter(([, v]) => v !== 0));

const kinds = (partial: Partial<KindCounts>): KindCounts =>
  ({ ...Object.fromEntries(KINDS.map((k) => [k, 0])), ...partial }) as KindCounts;

describe("KV", () => {
  const kv = countedKV(env.KV);

  it("counts a get as one read, a put as one write, a delete, a list, and passes values through", async () => {
    expect(moved(await counted(() => kv.put("k1", "one")))).toEqual({ kvWrites: 1 });
    expect(await env.KV.get("k1")).toBe("one");
    let value: string | null = null;
    expect(moved(await counted(async () => (value = await kv.get("k1"))))).toEqual({ kvReads: 1 });
    expect(value).toBe("one");
    expect(moved(await counted(() => kv.getWithMetadata("k1")))).toEqual({ kvReads: 1 });
    expect(moved(await counted(() => kv.list({ prefix: "k" })))).toEqual({ kvLists: 1 });
    expect(moved(await counted(() => kv.delete("k1")))).toEqual({ kvDeletes: 1 });
    expect(await env.KV.get("k1")).toBeNull();
  });

  it("counts a bulk read of three keys as three reads (one bulk call), a missing key included", async () => {
    await env.KV.put("b1", "x");
    await env.KV.put("b2", "y");
    let values = new Map<string, string | null>();
    const counts = await counted(async () => (values = await kv.get(["b1", "b2", "missing"])));
    expect(moved(counts)).toEqual({ kvReads: 3, kvBulkReads: 1 });
    expect([...values.entries()]).toEqual([
      ["b1", "x"],
      ["b2", "y"],
      ["missing", null],
    ]);
  });

  it("wraps each binding once, so caches keyed by binding see one object", () => {
    expect(countedKV(env.KV)).toBe(kv);
    expect(countedKV(kv)).toBe(kv);
    const wrapped = countedEnv(env);
    expect(countedEnv(env)).toBe(wrapped);
    expect(wrapped.KV).toBe(kv);
  });
});

describe("Durable Objects", () => {
  const probes = countedNamespace(env.PROBE);
  const stub = () => probes.get(probes.idFromName("probe"));

  it("counts each RPC call as one request and the SQL cursor's rows as billed rows", async () => {
    await stub().items(); // built: its constructor's table is in place before we count
    let written = 0;
    const insert = await counted(async () => (written = await stub().insert(["a", "b", "c"])));
    expect(written).toBe(3);
    expect(insert.doRpcCalls).toBe(1);
    expect(insert.sqlRowsWritten).toBe(3);
    const read = await counted(() => stub().items());
    expect(read.doRpcCalls).toBe(1);
    expect(read.sqlRowsRead).toBe(3);
    expect(read.sqlRowsWritten).toBe(0);
  });

  it("bills key-value storage as rows: a row per key read, listed, put or deleted", async () => {
    const counts = await counted(() => stub().keyValue());
    expect(counts.storageRowsWritten).toBe(1 + 2 + 1);
    // get(["a", "b"]) and the list of the two keys left.
    expect(counts.storageRowsRead).toBe(2 + 2);
    expect(billable(counts).do_rows_written).toBe(counts.sqlRowsWritten + 4);
  });

  it("bills a setAlarm as a row written and an alarm invocation as a request", async () => {
    const arm = await counted(() => stub().arm());
    expect(arm.setAlarms).toBe(1);
    expect(billable(arm).do_rows_written).toBe(arm.sqlRowsWritten + arm.storageRowsWritten + 1);
    const ran = await counted(() => runDurableObjectAlarm(env.PROBE.get(env.PROBE.idFromName("probe"))));
    expect(ran.doAlarms).toBe(1);
    expect(billable(ran).do_requests).toBe(1);
  });

  it("bills incoming WebSocket messages 20:1 and the upgrade as one request", async () => {
    let socket: WebSocket | undefined;
    const counts = await counted(async () => {
      const res = await stub().fetch("https://probe/", { headers: { Upgrade: "websocket" } });
      socket = res.webSocket!;
      socket.accept();
      let answered = 0;
      const all = new Promise<void>((resolve) =>
        socket!.addEventListener("message", () => {
          if (++answered === 40) resolve();
        }),
      );
      for (let i = 0; i < 40; i++) socket.send(`m${i}`);
      await all;
    });
    socket?.close();
    expect(counts.doFetches).toBe(1);
    expect(counts.doWebSocketMessagesIn).toBe(40);
    expect(billable(counts).do_requests).toBe(1 + 40 / 20);
  });

  it("counts nothing inside `uncounted` (the bench's probes)", async () => {
    const counts = await counted(async () => ledger.uncounted(() => ledger.add("kvReads", 5)));
    expect(moved(counts)).toEqual({});
  });
});

describe("Queues and service bindings", () => {
  it("counts each message sent, and bills a message as a write, a read and a delete", async () => {
    const queue = countedQueue(env.JOBS);
    const counts = await counted(async () => {
      await queue.send({ n: 1 });
      await queue.sendBatch([{ body: { n: 2 } }, { body: { n: 3 } }]);
    });
    expect(moved(counts)).toEqual({ queueMessages: 3 });
    expect(billable(counts).queue_ops).toBe(9);
  });

  it("counts a call over a service binding as a subrequest, never as a Worker request", async () => {
    const calls: string[] = [];
    const service = countedService({ hello: (name: string) => calls.push(name) });
    const counts = await counted(async () => service.hello("ada"));
    expect(calls).toEqual(["ada"]);
    expect(moved(counts)).toEqual({ serviceCalls: 1 });
    expect(billable(counts)).toMatchObject({ subrequests: 1, worker_requests: 0 });
  });
});

describe("prices", () => {
  it("multiplies each kind by its list price past the allowance", () => {
    // One guarded request of the strict mode: the app's request, one object request, one KV read, two rows read.
    const guarded = kinds({ worker_requests: 1, subrequests: 1, do_requests: 1, kv_reads: 1, do_rows_read: 2 });
    expect(usd(guarded) * 1e6).toBeCloseTo(0.3 + 0.15 + 0.5 + 0.002, 9);
    expect(usd(kinds({ subrequests: 1_000_000 }))).toBe(0);
    expect(usd(kinds({ kv_writes: 1, do_rows_written: 1, queue_ops: 3 })) * 1e6).toBeCloseTo(5 + 1 + 1.2, 9);
  });

  it("prices every counted kind but subrequests, each with a source and the date it was read", () => {
    const priced = PRICES.map((p) => p.kind).filter((k) => k !== null);
    expect(new Set(priced)).toEqual(new Set(KINDS.filter((k) => k !== "subrequests")));
    for (const price of PRICES) {
      expect(price.source).toMatch(/^https:\/\/developers\.cloudflare\.com\//);
      expect(price.read).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (price.kind === null) expect(price.notCounted).toBeTruthy();
    }
  });

  it("sums the profile and finds how many people the plan's allowances cover", () => {
    const one = kinds({ do_requests: 1 });
    const month = monthlyPerMau({ sign_in: one, guarded: one, slide: one, revoke_one: one, tab_open_hour: one });
    const steps = Object.values(PROFILE).reduce((a, b) => a + b, 0);
    expect(month.do_requests).toBe(steps);
    // 1 million Durable Object requests included: that many people's worth.
    expect(mauWithinAllowance(month)).toBe(Math.floor(1_000_000 / steps));
  });
});
