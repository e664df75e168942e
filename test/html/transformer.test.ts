import { HtmlTransformError, HtmlTransformer } from "gatehouse-workers/html";
import { describe, expect, it } from "vitest";
import { elements, html } from "./helpers";

const PAGE = `<!doctype html><html><head><title>T</title></head><body><div id="a">one</div><div class="x">two</div><p class="x">three</p></body></html>`;

describe("HtmlTransformer: chaining and spec rows", () => {
  it("returns this from every method but transform", () => {
    const t = new HtmlTransformer();
    expect(t.injectScript("/a.js")).toBe(t);
    expect(t.injectScript("/b.js", "body")).toBe(t);
    expect(t.setMetaTag("a", "b")).toBe(t);
    expect(t.replaceElement("#a", "x")).toBe(t);
    expect(t.removeElement(".x")).toBe(t);
    expect(t.abTest("#a", { a: "A" }, () => "a")).toBe(t);
    expect(t.transform(html(PAGE), new Request("http://x/"))).toBeInstanceOf(Response);
  });

  it("injectScript appends to head by default, and to body on request", async () => {
    const out = await new HtmlTransformer()
      .injectScript("/head.js")
      .injectScript("/body.js", "body")
      .transform(html(PAGE))
      .text();
    expect(out).toContain(`<title>T</title><script src="/head.js"></script></head>`);
    expect(out).toContain(`<p class="x">three</p><script src="/body.js"></script></body>`);
  });

  it("injects several scripts in registration order, once each", async () => {
    const out = await new HtmlTransformer().injectScript("/1.js").injectScript("/2.js").transform(html(PAGE)).text();
    const scripts = await elements(out, "script");
    expect(scripts.map((s) => s.attributes)).toEqual([[["src", "/1.js"]], [["src", "/2.js"]]]);
  });

  it("rejects an unknown script position", () => {
    expect(() => new HtmlTransformer().injectScript("/a.js", "footer" as "head")).toThrow(TypeError);
  });

  it("replaceElement replaces the inner content of every match, keeping the element", async () => {
    const out = await new HtmlTransformer().replaceElement(".x", "<b>new</b>").transform(html(PAGE)).text();
    expect(out).toContain(`<div class="x"><b>new</b></div><p class="x"><b>new</b></p>`);
    expect(out).toContain(`<div id="a">one</div>`);
  });

  it("removeElement removes every match with its content", async () => {
    const out = await new HtmlTransformer().removeElement(".x").transform(html(PAGE)).text();
    expect(out).toContain(`<body><div id="a">one</div></body>`);
  });

  it("applies several operations on one selector in registration order", async () => {
    const later = await new HtmlTransformer()
      .replaceElement("#a", "first")
      .replaceElement("#a", "second")
      .transform(html(PAGE))
      .text();
    expect(later).toContain(`<div id="a">second</div>`);
    const removedLast = await new HtmlTransformer()
      .replaceElement("#a", "first")
      .removeElement("#a")
      .transform(html(PAGE))
      .text();
    expect(removedLast).not.toContain(`id="a"`);
  });

  it("accepts every selector HTMLRewriter accepts", async () => {
    const out = await new HtmlTransformer()
      .replaceElement("body > div:nth-child(2)", "2nd")
      .removeElement("p:not(#a)")
      .transform(html(PAGE))
      .text();
    expect(out).toContain(`<div class="x">2nd</div>`);
    expect(out).not.toContain("<p");
  });

  it.each(["div[", "", "a:hover", "p >", "::before"])(
    "rejects the invalid selector %j at registration, naming it",
    (bad) => {
      for (const register of [
        (t: HtmlTransformer) => t.replaceElement(bad, "x"),
        (t: HtmlTransformer) => t.removeElement(bad),
        (t: HtmlTransformer) => t.abTest(bad, {}, () => "a"),
      ]) {
        let error: unknown;
        try {
          register(new HtmlTransformer());
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(HtmlTransformError);
        expect((error as HtmlTransformError).code).toBe("invalid_selector");
        expect((error as Error).message).toContain(JSON.stringify(bad));
      }
    },
  );
});

describe("HtmlTransformer: responses", () => {
  it("passes a non-HTML response through untouched", async () => {
    const t = new HtmlTransformer().removeElement("div").injectScript("/a.js");
    for (const type of ["application/json", "text/plain", "text/htmlx", "image/svg+xml"]) {
      const res = html(`<div>keep</div>`, { "content-type": type, "content-length": "15" });
      const out = t.transform(res);
      expect(out).toBe(res);
      expect(await out.text()).toBe("<div>keep</div>");
    }
    const untyped = new Response("<div>keep</div>");
    untyped.headers.delete("content-type");
    expect(t.transform(untyped)).toBe(untyped);
  });

  it("passes a bodiless response through untouched", () => {
    const res = new Response(null, { status: 304, headers: { "content-type": "text/html" } });
    expect(new HtmlTransformer().removeElement("div").transform(res)).toBe(res);
  });

  it("treats text/html with parameters and any case as HTML", async () => {
    const out = new HtmlTransformer()
      .removeElement(".x")
      .transform(html(PAGE, { "content-type": "Text/HTML; charset=UTF-8" }));
    expect(await out.text()).not.toContain("two");
  });

  it("keeps status and headers, drops Content-Length and weakens a strong ETag when the body changes", async () => {
    const res = html(
      PAGE,
      { "content-type": "text/html", "content-length": String(PAGE.length), etag: '"v1"', "x-a": "1" },
      404,
    );
    const out = new HtmlTransformer().removeElement(".x").transform(res);
    expect(out.status).toBe(404);
    expect(out.headers.get("x-a")).toBe("1");
    expect(out.headers.get("content-type")).toBe("text/html");
    expect(out.headers.has("content-length")).toBe(false);
    expect(out.headers.get("etag")).toBe('W/"v1"');
    const weak = new HtmlTransformer()
      .removeElement(".x")
      .transform(html(PAGE, { "content-type": "text/html", etag: 'W/"v2"' }));
    expect(weak.headers.get("etag")).toBe('W/"v2"');
  });

  it("returns the response as it was when no operation applies", () => {
    const res = html(PAGE, { "content-type": "text/html", "content-length": String(PAGE.length) });
    expect(new HtmlTransformer().transform(res)).toBe(res);
  });

  it("reuses one transformer across responses without sharing state", async () => {
    const t = new HtmlTransformer().setMetaTag("d", "v").injectScript("/a.js");
    const [first, second] = await Promise.all([t.transform(html(PAGE)).text(), t.transform(html(PAGE)).text()]);
    expect(first).toBe(second);
    expect((await elements(first, "meta")).length).toBe(1);
    expect((await elements(first, "script")).length).toBe(1);
  });
});
