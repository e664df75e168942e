/**
 * @module
 * The few Structured Field Values (RFC 8941) DBSC needs: serializing strings, tokens, inner lists
 * and parameters, and parsing a list of bare items with parameters. Deliberately minimal: no
 * integers, decimals, byte sequences or dictionaries. A serializer refuses what it cannot write
 * correctly (it never emits an invalid field); the parser returns null on anything malformed.
 */

/** An sf-token (RFC 8941 §3.3.4), as opposed to an sf-string. */
export class Token {
  constructor(readonly value: string) {}
}

export type BareItem = string | Token | boolean;
export type Parameters = ReadonlyArray<readonly [key: string, value: BareItem]>;

const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/;
const KEY = /^[a-z*][a-z0-9_\-.*]*$/;

/** RFC 8941 §4.1.6: printable ASCII only; `"` and `\` escaped. */
export function serializeString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new TypeError("sf-string: printable ASCII only");
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function serializeBareItem(item: BareItem): string {
  if (item instanceof Token) {
    if (!TOKEN.test(item.value)) throw new TypeError(`sf-token: invalid ${JSON.stringify(item.value)}`);
    return item.value;
  }
  if (typeof item === "boolean") return item ? "?1" : "?0";
  return serializeString(item);
}

/** RFC 8941 §4.1.1.2: `;key=value`, and a bare `;key` for `true`. */
export function serializeParameters(params: Parameters): string {
  let out = "";
  for (const [key, value] of params) {
    if (!KEY.test(key)) throw new TypeError(`sf-key: invalid ${JSON.stringify(key)}`);
    out += value === true ? `;${key}` : `;${key}=${serializeBareItem(value)}`;
  }
  return out;
}

/** An item with parameters (RFC 8941 §4.1.3). */
export function serializeItem(item: BareItem, params: Parameters = []): string {
  return serializeBareItem(item) + serializeParameters(params);
}

/** An inner list with parameters (RFC 8941 §4.1.1.1): `(a b);k="v"`. */
export function serializeInnerList(items: readonly BareItem[], params: Parameters = []): string {
  return `(${items.map((i) => serializeBareItem(i)).join(" ")})${serializeParameters(params)}`;
}

/** A list member as parsed: a string or token item (inner lists are refused), with parameters. */
export interface ParsedMember {
  item: BareItem;
  params: Map<string, BareItem>;
}

/** Parses an sf-list of items (no inner lists). Null when the text is not a valid such list. */
export function parseItemList(text: string): ParsedMember[] | null {
  const p = new Parser(text);
  const out: ParsedMember[] = [];
  p.skip(" ");
  if (p.done()) return out;
  for (;;) {
    const item = p.bareItem();
    if (item === null) return null;
    const params = p.parameters();
    if (params === null) return null;
    out.push({ item, params });
    p.skip(" \t");
    if (p.done()) return out;
    if (!p.eat(",")) return null;
    p.skip(" \t");
    if (p.done()) return null; // a trailing comma
  }
}

/** Parses one sf-string item (no parameters allowed); null otherwise. */
export function parseStringItem(text: string): string | null {
  const p = new Parser(text.trim());
  const value = p.string();
  return value !== null && p.done() ? value : null;
}

class Parser {
  #i = 0;
  constructor(readonly text: string) {}

  done(): boolean {
    return this.#i >= this.text.length;
  }

  eat(char: string): boolean {
    if (this.text[this.#i] !== char) return false;
    this.#i++;
    return true;
  }

  skip(chars: string): void {
    while (!this.done() && chars.includes(this.text[this.#i]!)) this.#i++;
  }

  bareItem(): BareItem | null {
    const c = this.text[this.#i];
    if (c === '"') return this.string();
    if (c === "?") {
      const b = this.text[this.#i + 1];
      if (b !== "0" && b !== "1") return null;
      this.#i += 2;
      return b === "1";
    }
    const m = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(this.text.slice(this.#i));
    if (!m) return null;
    this.#i += m[0].length;
    return new Token(m[0]);
  }

  string(): string | null {
    if (!this.eat('"')) return null;
    let out = "";
    while (!this.done()) {
      const c = this.text[this.#i++]!;
      if (c === '"') return out;
      if (c === "\\") {
        const next = this.text[this.#i++];
        if (next !== '"' && next !== "\\") return null;
        out += next;
      } else if (c < " " || c > "~") return null;
      else out += c;
    }
    return null; // unterminated
  }

  parameters(): Map<string, BareItem> | null {
    const params = new Map<string, BareItem>();
    while (this.eat(";")) {
      this.skip(" ");
      const m = /^[a-z*][a-z0-9_\-.*]*/.exec(this.text.slice(this.#i));
      if (!m) return null;
      this.#i += m[0].length;
      let value: BareItem | null = true;
      if (this.eat("=")) value = this.bareItem();
      if (value === null) return null;
      params.set(m[0], value);
    }
    return params;
  }
}
