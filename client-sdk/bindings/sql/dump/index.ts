/**
 * @module
 * `dumpDatabase(db)`: the whole D1 database as the bytes of a SQLite file.
 * Loaded only through `SqlDatabase.dump()`'s dynamic `import()`, so workers
 * that never dump do not evaluate (and bundlers that split chunks do not ship)
 * the reader and the file writer.
 */
import { BindingError } from "../../errors";
import { readDatabase } from "./read";
import { writeSqliteFile } from "./sqlite-file";

export async function dumpDatabase(db: D1Database): Promise<ArrayBuffer> {
  const objects = await readDatabase(db);
  try {
    return writeSqliteFile(objects).buffer as ArrayBuffer;
  } catch (err) {
    throw new BindingError("dump_failed", {
      message: "SqlDatabase.dump(): could not encode the SQLite file",
      cause: err,
    });
  }
}
