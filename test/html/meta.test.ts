import { HtmlTransformer } from "gatehouse-workers/html";
import { describe, expect, it } from "vitest";
import { elements, html } from "./helpers";

async function metas(page: string, t: HtmlTransformer) {
  const out = await t.transform(html(page)).text();
  return { out, metas: await elements(out, "meta") };
}

describe("HtmlTransformer.setMetaTag", () => {
  it("updates an existing tag in place without adding another", async () => {
    const page = `<html><head><meta name="description" content="old"><title>T</title></head><body></body></html>`;
    const { out, metas: found } = await metas(page, new HtmlTransformer().setMetaTag("description", "new"));
    expect(found).toEqual([
      {
        tag: "meta",
        attributes: [
          ["name", "description"],
          ["content", "new"],
        ],
      },
    ]);
    expect(out).toBe(`<html><head><meta name="description" content="new"><title>T</title></head><body></body></html>`);
  });

  it("inserts one just before </head> when absent", async () => {
    const page = `<html><head><title>T</title></head><body></body></html>`;
    const { out } = await metas(page, new HtmlTransformer().setMetaTag("robots", "noindex"));
    expect(out).toBe(`<html><head><title>T</title><meta name="robots" content="noindex"></head><body></body></html>`);
  });

  it("matches the name case-insensitively and through character references", async () => {
    const page = `<head><META NAME="Description" content="a"><meta name="og&#58;title" content="b"></head>`;
    const { metas: found } = await metas(
      page,
      new HtmlTransformer().setMetaTag("description", "x").setMetaTag("og:title", "y"),
    );
    expect(found.map((m) => m.attributes)).toEqual([
      [
        ["name", "Description"],
        ["content", "x"],
      ],
      [
        ["name", "og&#58;title"],
        ["content", "y"],
      ],
    ]);
  });

  it("updates every existing tag of that name and leaves other meta tags alone", async () => {
    const page = `<head><meta name="d" content="1"><meta charset="utf-8"><meta name="e" content="2"><meta name="d" content="3"></head>`;
    const { metas: found } = await metas(page, new HtmlTransformer().setMetaTag("d", "new"));
    expect(found.map((m) => m.attributes)).toEqual([
      [
        ["name", "d"],
        ["content", "new"],
      ],
      [["charset", "utf-8"]],
      [
        ["name", "e"],
        ["content", "2"],
      ],
      [
        ["name", "d"],
        ["content", "new"],
      ],
    ]);
  });

  it("handles several names in one pass: updates one, inserts the other; a later call wins", async () => {
    const page = `<head><meta name="a" content="old"></head><body></body>`;
    const { out } = await metas(
      page,
      new HtmlTransformer().setMetaTag("a", "1").setMetaTag("b", "2").setMetaTag("b", "3").injectScript("/s.js"),
    );
    expect(out).toBe(
      `<head><meta name="a" content="1"><meta name="b" content="3"><script src="/s.js"></script></head><body></body>`,
    );
  });

  it("inserts before <body> when </head> is omitted, and only once", async () => {
    const page = `<html><head><title>T</title><body><p>x</p></body></html>`;
    const { out, metas: found } = await metas(page, new HtmlTransformer().setMetaTag("d", "v").injectScript("/s.js"));
    expect(found).toHaveLength(1);
    expect(out).toBe(
      `<html><head><title>T</title><meta name="d" content="v"><script src="/s.js"></script><body><p>x</p></body></html>`,
    );
  });

  it("inserts before <body> when the page has no head at all", async () => {
    const page = `<!doctype html><html><body>x</body></html>`;
    const { out } = await metas(page, new HtmlTransformer().setMetaTag("d", "v"));
    expect(out).toBe(`<!doctype html><html><meta name="d" content="v"><body>x</body></html>`);
  });

  it("does not count a tag inside replaced content as existing", async () => {
    const page = `<head><meta name="d" content="old"></head><body></body>`;
    const { metas: found } = await metas(
      page,
      new HtmlTransformer().replaceElement("head", "<title>T</title>").setMetaTag("d", "v"),
    );
    expect(found.map((m) => m.attributes)).toEqual([
      [
        ["name", "d"],
        ["content", "v"],
      ],
    ]);
  });
});
