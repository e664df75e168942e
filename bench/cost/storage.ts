/**
 * @module
 * The counting storage of the cost bench's Durable Objects. workerd refuses a wrapped state
 * ("constructor parameter 1 is not of type 'DurableObjectState'"), and the objects take
 * `ctx.storage.sql` in their constructors, so the storage API is counted on its prototypes, once
 * per isolate, before the first object is built: every object of the bench's isolate is counted.
 * SQL: every cursor `sql.exec` returns is tracked and its `rowsRead` / `rowsWritten` (what the
 * platform bills, per the SQL storage API page) go to the ledger as it is iterated. The key-value
 * methods on a SQLite-backed object are billed as rows (a hidden table): a row read per key got or
 * listed, a row written per key put or deleted. `setAlarm` is a row written (documented);
 * `deleteAlarm` and `deleteAll` are counted apart and not priced. Every call then goes to the real
 * method with the same arguments and its answer is returned unchanged.
 */
import { ledger } from "./ledger";

const COUNTED = Symbol.for("gatehouse.cost.counted");

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Replaces `proto[name]` with `wrap(original)`, once. */
function patch(proto: Record<PropertyKey, unknown>, name: string, wrap: (original: Method) => Method): void {
  const original = proto[name] as Method | undefined;
  if (typeof original !== "function" || (original as { [COUNTED]?: boolean })[COUNTED]) return;
  const counted = Object.assign(wrap(original), { [COUNTED]: true });
  Object.defineProperty(proto, name, { value: counted, writable: true, configurable: true, enumerable: false });
}

const keysOf = (key: unknown) => (Array.isArray(key) ? key.length : 1);
const entriesOf = (key: unknown) => (typeof key === "string" ? 1 : Object.keys(key as object).length);

/** Counts the storage of every Durable Object of this isolate from now on (idempotent). */
export function countObjectStorage(ctx: DurableObjectState): void {
  const storage = Object.getPrototypeOf(ctx.storage) as Record<PropertyKey, unknown>;
  const sql = Object.getPrototypeOf(ctx.storage.sql) as Record<PropertyKey, unknown>;
  patch(
    sql,
    "exec",
    (exec) =>
      function (this: unknown, ...args: unknown[]) {
        const cursor = exec.apply(this, args) as { rowsRead: number; rowsWritten: number };
        ledger.track(cursor);
        return cursor;
      },
  );
  patch(
    storage,
    "get",
    (get) =>
      function (this: unknown, key: unknown, ...rest: unknown[]) {
        ledger.add("storageRowsRead", keysOf(key));
        return get.call(this, key, ...rest);
      },
  );
  patch(
    storage,
    "put",
    (put) =>
      function (this: unknown, key: unknown, ...rest: unknown[]) {
        ledger.add("storageRowsWritten", entriesOf(key));
        return put.call(this, key, ...rest);
      },
  );
  patch(
    storage,
    "delete",
    (del) =>
      function (this: unknown, key: unknown, ...rest: unknown[]) {
        ledger.add("storageRowsWritten", keysOf(key));
        return del.call(this, key, ...rest);
      },
  );
  patch(
    storage,
    "list",
    (list) =>
      async function (this: unknown, ...args: unknown[]) {
        const listed = (await list.apply(this, args)) as Map<string, unknown>;
        ledger.add("storageRowsRead", Math.max(1, listed.size));
        return listed;
      },
  );
  for (const [name, counter] of [
    ["setAlarm", "setAlarms"],
    ["deleteAlarm", "deleteAlarms"],
    ["deleteAll", "deleteAlls"],
  ] as const) {
    patch(
      storage,
      name,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          ledger.add(counter);
          return original.apply(this, args);
        },
    );
  }
}
