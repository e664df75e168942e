/**
 * @module
 * The Postgres frontend/backend protocol (version 3.0) as bytes: the messages the built-in driver
 * sends, the framing of what the server answers, and the text format of parameters and columns.
 * Values are converted as `postgresDriver` (postgres.js, without type fetching) converts them, so
 * switching drivers changes no result. It does no I/O.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Bytes as lower-case hex. A copy of core/digest's on purpose: this module is loaded by `import()`
 * and imports nothing from core (see `Connection.open` in index.ts).
 */
export function toHex(bytes: Uint8Array | ArrayBuffer): string {
  let hex = "";
  for (const b of bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** A frontend message: `type` (none for the startup message), then an int32 length, then the body. */
export class MessageWriter {
  readonly #parts: Uint8Array[] = [];
  #size = 0;

  constructor(readonly type: string | null) {}

  bytes(bytes: Uint8Array): this {
    this.#parts.push(bytes);
    this.#size += bytes.byteLength;
    return this;
  }

  /** A NUL-terminated UTF-8 string. */
  cstr(text: string): this {
    return this.bytes(encoder.encode(text)).bytes(new Uint8Array(1));
  }

  i16(n: number): this {
    const out = new Uint8Array(2);
    new DataView(out.buffer).setInt16(0, n);
    return this.bytes(out);
  }

  i32(n: number): this {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setInt32(0, n);
    return this.bytes(out);
  }

  end(): Uint8Array {
    const head = this.type === null ? 0 : 1;
    const out = new Uint8Array(head + 4 + this.#size);
    if (this.type !== null) out[0] = this.type.charCodeAt(0);
    new DataView(out.buffer).setInt32(head, 4 + this.#size);
    let at = head + 4;
    for (const part of this.#parts) {
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }
}

/** Concatenates messages so they go out in one write. */
export function concat(messages: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(messages.reduce((n, m) => n + m.byteLength, 0));
  let at = 0;
  for (const m of messages) {
    out.set(m, at);
    at += m.byteLength;
  }
  return out;
}

/** The startup message: protocol 3.0 and the connection parameters. */
export function startupMessage(params: Record<string, string>): Uint8Array {
  const message = new MessageWriter(null).i32(196_608);
  for (const [key, value] of Object.entries(params)) message.cstr(key).cstr(value);
  return message.bytes(new Uint8Array(1)).end();
}

/**
 * One unnamed statement with text-format parameters and results: Parse, Bind, Describe (portal),
 * Execute, Sync. Parameter types are the ones `encodeParameter` infers (0: the server decides).
 */
export function extendedQuery(sql: string, params: readonly unknown[]): Uint8Array {
  const encoded = params.map(encodeParameter);
  const parse = new MessageWriter("P").cstr("").cstr(sql).i16(encoded.length);
  for (const { type } of encoded) parse.i32(type);
  const bind = new MessageWriter("B").cstr("").cstr("").i16(0).i16(encoded.length);
  for (const { text } of encoded) {
    if (text === null) bind.i32(-1);
    else {
      const bytes = encoder.encode(text);
      bind.i32(bytes.byteLength).bytes(bytes);
    }
  }
  bind.i16(0);
  return concat([
    parse.end(),
    bind.end(),
    new MessageWriter("D").bytes(encoder.encode("P")).cstr("").end(),
    new MessageWriter("E").cstr("").i32(0).end(),
    new MessageWriter("S").end(),
  ]);
}

/** A parameter's text and type OID, inferred as postgres.js infers them (timestamptz, bytea, bool, int8, else 0). */
export function encodeParameter(value: unknown): { text: string | null; type: number } {
  if (value === null || value === undefined) return { text: null, type: 0 };
  if (value instanceof Date) return { text: value.toISOString(), type: 1184 };
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return { text: byteaText(value), type: 17 };
  if (typeof value === "boolean") return { text: value ? "t" : "f", type: 16 };
  if (typeof value === "bigint") return { text: value.toString(), type: 20 };
  if (Array.isArray(value)) return { text: arrayLiteral(value), type: 0 };
  if (typeof value === "object") return { text: JSON.stringify(value), type: 0 };
  return { text: String(value), type: 0 };
}

function byteaText(value: Uint8Array | ArrayBuffer): string {
  return `\\x${toHex(value)}`;
}

/** A Postgres array literal (`{1,"a b",NULL,{2}}`), for `= ANY($1)` and array columns. */
function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((value) => {
    if (value === null || value === undefined) return "NULL";
    if (Array.isArray(value)) return arrayLiteral(value);
    const { text } = encodeParameter(value);
    return `"${text!.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  });
  return `{${items.join(",")}}`;
}

/** A column of a RowDescription: its name and type OID. */
export interface Column {
  name: string;
  type: number;
}

/** A cursor over a backend message's body. */
export class MessageReader {
  #at = 0;
  readonly #view: DataView;

  constructor(readonly body: Uint8Array) {
    this.#view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  }

  i16(): number {
    const n = this.#view.getInt16(this.#at);
    this.#at += 2;
    return n;
  }

  i32(): number {
    const n = this.#view.getInt32(this.#at);
    this.#at += 4;
    return n;
  }

  byte(): number {
    return this.body[this.#at++] ?? 0;
  }

  bytes(length: number): Uint8Array {
    const out = this.body.subarray(this.#at, this.#at + length);
    this.#at += length;
    return out;
  }

  cstr(): string {
    const end = this.body.indexOf(0, this.#at);
    const stop = end === -1 ? this.body.byteLength : end;
    const text = decoder.decode(this.body.subarray(this.#at, stop));
    this.#at = stop + 1;
    return text;
  }
}

/** The columns of a RowDescription ('T'). */
export function rowDescription(body: Uint8Array): Column[] {
  const reader = new MessageReader(body);
  const count = reader.i16();
  const columns: Column[] = [];
  for (let i = 0; i < count; i++) {
    const name = reader.cstr();
    reader.bytes(6); // table OID, column number
    const type = reader.i32();
    reader.bytes(8); // type size, type modifier, format code
    columns.push({ name, type });
  }
  return columns;
}

/** A DataRow ('D') as an object keyed by column name, values parsed by type. */
export function dataRow(body: Uint8Array, columns: readonly Column[]): Record<string, unknown> {
  const reader = new MessageReader(body);
  const count = reader.i16();
  const row: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const length = reader.i32();
    const column = columns[i];
    const value = length === -1 ? null : parseValue(decoder.decode(reader.bytes(length)), column?.type ?? 0);
    // defineProperty: a column named `__proto__` is a column, never the row's prototype.
    Object.defineProperty(row, column?.name ?? String(i), {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return row;
}

const NUMBERS = new Set([21, 23, 26, 700, 701]); // int2, int4, oid, float4, float8
const JSON_TYPES = new Set([114, 3802]);
const DATES = new Set([1082, 1114, 1184]); // date, timestamp, timestamptz

/** postgres.js's defaults: int8 and numeric stay strings (no precision lost), arrays stay text. */
export function parseValue(text: string, type: number): unknown {
  if (NUMBERS.has(type)) return +text;
  if (type === 16) return text === "t";
  if (JSON_TYPES.has(type)) return JSON.parse(text);
  if (DATES.has(type)) return new Date(text);
  if (type === 17) return hexBytes(text.slice(2));
  return text;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The fields of an ErrorResponse ('E'): SQLSTATE and message. */
export function errorFields(body: Uint8Array): { code: string; message: string } {
  const reader = new MessageReader(body);
  const fields: Record<string, string> = {};
  for (let field = reader.byte(); field !== 0; field = reader.byte())
    fields[String.fromCharCode(field)] = reader.cstr();
  return { code: fields.C ?? "XX000", message: fields.M ?? "unknown error" };
}
