/**
 * @module
 * Escaping for text written into HTML attribute values. Every character that
 * could end the value, open a tag or start an entity is encoded, so no input
 * can break out of `attr="…"`; it must never be used for trusted HTML, which
 * is inserted as-is by design.
 */

const ATTRIBUTE_SPECIALS = /[&<>"'\r\n\t]/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "\r": "&#13;",
  "\n": "&#10;",
  "\t": "&#9;",
};

/** Encodes text for HTML element content or a quoted attribute: `& < > " '` as numeric references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Encodes `value` for use inside a double- or single-quoted attribute. */
export function escapeAttribute(value: string): string {
  return value.replace(ATTRIBUTE_SPECIALS, (c) => ENTITIES[c]!);
}

const REFERENCE = /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));?/g;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/**
 * Decodes the character references an attribute value is likely to hold
 * (numeric ones and `&amp; &lt; &gt; &quot; &apos;`). HTMLRewriter hands
 * attribute values over raw, so comparing them with plain text needs this.
 */
export function decodeAttribute(raw: string): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(REFERENCE, (match, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}
