/**
 * @module
 * SQLite's record format and varints (https://sqlite.org/fileformat2.html §2.1,
 * §2.3): encodes one row as header + body bytes. Pure byte encoding; it never
 * interprets schemas, and it never loses precision (integers are bigints).
 */

/** One SQLite value: bigint = INTEGER, number = REAL, string = TEXT, Uint8Array = BLOB. */
export type SqlValue = null | bigint | number | string | Uint8Array;

const encoder = new TextEncoder();
const U64 = (1n << 64n) - 1n;

/** Bytes of SQLite's big-endian varint of `value` (a 64-bit two's-complement integer). */
export function varint(value: bigint | number): Uint8Array {
  if (typeof value === "number" && value >= 0 && value < 0x80) return Uint8Array.of(value);
  let v = BigInt(value) & U64;
  if (v > 0x00ffffffffffffffn) {
    // Nine bytes: eight of seven bits, then a full last byte.
    const out = new Uint8Array(9);
    out[8] = Number(v & 0xffn);
    v >>= 8n;
    for (let i = 7; i >= 0; i--) {
      out[i] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    return out;
  }
  const groups: number[] = [];
  do {
    groups.unshift(Number(v & 0x7fn));
    v >>= 7n;
  } while (v > 0n);
  for (let i = 0; i < groups.length - 1; i++) groups[i]! |= 0x80;
  return Uint8Array.from(groups);
}

export function varintLength(value: number): number {
  let n = 1;
  while (value >= 0x80 && n < 9) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

interface Field {
  serialType: number;
  body: Uint8Array;
}

const EMPTY = new Uint8Array(0);

function integerField(value: bigint): Field {
  if (value === 0n) return { serialType: 8, body: EMPTY };
  if (value === 1n) return { serialType: 9, body: EMPTY };
  const sizes: [number, number][] = [
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 4],
    [5, 6],
    [6, 8],
  ];
  for (const [serialType, bytes] of sizes) {
    const bits = BigInt(bytes * 8);
    const min = -(1n << (bits - 1n));
    const max = (1n << (bits - 1n)) - 1n;
    if (value >= min && value <= max) {
      const body = new Uint8Array(bytes);
      let v = BigInt.asUintN(bytes * 8, value);
      for (let i = bytes - 1; i >= 0; i--) {
        body[i] = Number(v & 0xffn);
        v >>= 8n;
      }
      return { serialType, body };
    }
  }
  throw new RangeError(`integer ${value} does not fit in 64 bits`);
}

function field(value: SqlValue): Field {
  if (value === null) return { serialType: 0, body: EMPTY };
  if (typeof value === "bigint") return integerField(value);
  if (typeof value === "number") {
    const body = new Uint8Array(8);
    new DataView(body.buffer).setFloat64(0, value);
    return { serialType: 7, body };
  }
  if (typeof value === "string") {
    const body = encoder.encode(value);
    return { serialType: 13 + 2 * body.length, body };
  }
  return { serialType: 12 + 2 * value.length, body: value };
}

/** The record (header then body) of one row. */
export function encodeRecord(values: readonly SqlValue[]): Uint8Array {
  const fields = values.map(field);
  const types = fields.map((f) => varint(f.serialType));
  const typesLength = types.reduce((n, t) => n + t.length, 0);
  // The header length counts its own varint, whose size depends on the total.
  let headerLength = typesLength + 1;
  while (varintLength(headerLength) + typesLength !== headerLength)
    headerLength = varintLength(headerLength) + typesLength;
  const bodyLength = fields.reduce((n, f) => n + f.body.length, 0);
  const out = new Uint8Array(headerLength + bodyLength);
  let at = 0;
  out.set(varint(headerLength), at);
  at += varintLength(headerLength);
  for (const t of types) {
    out.set(t, at);
    at += t.length;
  }
  for (const f of fields) {
    out.set(f.body, at);
    at += f.body.length;
  }
  return out;
}
