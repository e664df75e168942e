import fc from "fast-check";
import { HtmlTransformer } from "gatehouse-workers/html";
import { describe, expect, it } from "vitest";
import { decode, elements, html } from "./helpers";

const PAGE = `<html><head><meta name="existing" content="x"></head><body><p>text</p></body></html>`;
const HOSTILE = [
  `"><script>alert(1)</script>`,
  `' onload='alert(1)`,
  `" onerror="alert(1)`,
  `x\n" autofocus onfocus="alert(1)`,
  `&quot;><img src=x>`,
  `</head><body onload=alert(1)>`,
  `a\r\n\tb<>&"'`,
  "",
];

/** The page after the transformer, read back as elements by an independent parse. */
async function readBack(t: HtmlTransformer) {
  const out = await t.transform(html(PAGE)).text();
  return { out, all: await elements(out) };
}

describe("HtmlTransformer escaping", () => {
  it.each(HOSTILE)("injectScript cannot break out of src with %j", async (src) => {
    const { all } = await readBack(new HtmlTransformer().injectScript(src).injectScript(src, "body"));
    const scripts = all.filter((e) => e.tag === "script");
    expect(scripts).toHaveLength(2);
    for (const script of scripts) {
      expect(script.attributes.map(([name]) => name)).toEqual(["src"]);
      expect(decode(script.attributes[0]![1])).toBe(src);
    }
    // Nothing else appeared: html, head, meta, body, p and the two scripts.
    expect(all.map((e) => e.tag).sort()).toEqual(["body", "head", "html", "meta", "p", "script", "script"]);
  });

  it.each(HOSTILE)("setMetaTag cannot break out of name or content with %j", async (value) => {
    const { all } = await readBack(new HtmlTransformer().setMetaTag("existing", value).setMetaTag(value || "n", value));
    const metas = all.filter((e) => e.tag === "meta");
    expect(metas).toHaveLength(2);
    expect(metas[0]!.attributes.map(([k, v]) => [k, decode(v)])).toEqual([
      ["name", "existing"],
      ["content", value],
    ]);
    expect(metas[1]!.attributes.map(([k, v]) => [k, decode(v)])).toEqual([
      ["name", value || "n"],
      ["content", value],
    ]);
    expect(all.map((e) => e.tag).sort()).toEqual(["body", "head", "html", "meta", "meta", "p"]);
  });

  it("round-trips any string through script src and meta content (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 40 }), async (value) => {
        const { all } = await readBack(new HtmlTransformer().injectScript(value).setMetaTag("existing", value));
        const script = all.filter((e) => e.tag === "script");
        const meta = all.filter((e) => e.tag === "meta");
        expect(script).toHaveLength(1);
        expect(meta).toHaveLength(1);
        expect(script[0]!.attributes.length).toBe(1);
        expect(decode(script[0]!.attributes[0]![1])).toBe(value);
        expect(decode(meta[0]!.attributes[1]![1])).toBe(value);
      }),
      { numRuns: 150 },
    );
  });

  it("inserts replaceElement and abTest markup as trusted HTML, unescaped", async () => {
    const out = await new HtmlTransformer()
      .replaceElement("p", `<b title="t">bold</b>`)
      .abTest("head", { a: "<title>A</title>" }, () => "a")
      .transform(html(PAGE), new Request("http://x/"))
      .text();
    expect(out).toContain(`<p><b title="t">bold</b></p>`);
    expect(out).toContain(`<head><title>A</title></head>`);
  });
});
