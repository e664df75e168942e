import { exports } from "cloudflare:workers";
import { HtmlTransformer } from "gatehouse-workers/html";
import { describe, expect, it } from "vitest";
import { html } from "./helpers";

const PAGE = `<html><head></head><body><h1 class="hero">Welcome</h1><h1 class="hero">Again</h1></body></html>`;
const VARIANTS = { a: "<em>A</em>", b: "<em>B</em>" };

describe("HtmlTransformer.abTest", () => {
  it("replaces the inner content of every match with the assigned variant", async () => {
    const seen: Request[] = [];
    const request = new Request("http://x/", { headers: { "x-bucket": "b" } });
    const out = await new HtmlTransformer()
      .abTest(".hero", VARIANTS, (req) => {
        seen.push(req);
        return req.headers.get("x-bucket") ?? "";
      })
      .transform(html(PAGE), request)
      .text();
    expect(out).toContain(`<h1 class="hero"><em>B</em></h1><h1 class="hero"><em>B</em></h1>`);
    // Called once per transform, with the request given to transform.
    expect(seen).toEqual([request]);
  });

  it("leaves the element as it was when the key has no variant", async () => {
    for (const key of ["c", "", "toString", "__proto__", "constructor"]) {
      const out = await new HtmlTransformer()
        .abTest(".hero", VARIANTS, () => key)
        .transform(html(PAGE), new Request("http://x/"))
        .text();
      expect(out).toBe(PAGE);
    }
  });

  it("throws a TypeError when transform gets no request after abTest", () => {
    const t = new HtmlTransformer().abTest(".hero", VARIANTS, () => "a");
    expect(() => t.transform(html(PAGE))).toThrow(TypeError);
    expect(() => t.transform(html(PAGE))).toThrow(/request/);
    // Also for a response it would not touch: the call is wrong either way.
    expect(() => t.transform(html("{}", { "content-type": "application/json" }))).toThrow(TypeError);
  });

  it("ignores a request when abTest was not used", async () => {
    const out = await new HtmlTransformer().removeElement("h1").transform(html(PAGE), new Request("http://x/")).text();
    expect(out).toBe(`<html><head></head><body></body></html>`);
  });

  it("snapshots the variants at registration", async () => {
    const variants: Record<string, string> = { a: "A" };
    const t = new HtmlTransformer().abTest(".hero", variants, () => "a");
    variants.a = "changed";
    const out = await t.transform(html(PAGE), new Request("http://x/")).text();
    expect(out).toContain(`<h1 class="hero">A</h1>`);
  });

  it("picks per request in a worker that reuses one transformer", async () => {
    const a = await exports.default.fetch("http://x/", { headers: { cookie: "bucket=a" } });
    const b = await exports.default.fetch("http://x/", { headers: { cookie: "theme=dark; bucket=b" } });
    const none = await exports.default.fetch("http://x/");
    expect(await a.text()).toContain(`<h1 id="hero">Hello A</h1>`);
    expect(await b.text()).toContain(`<h1 id="hero">Hello B</h1>`);
    const control = await none.text();
    expect(control).toContain(`<h1 id="hero">Welcome</h1>`);
    expect(control).toContain(`<meta name="description" content="new">`);
    expect(control).toContain(`<script src="/app.js"></script></head>`);
    expect(control).not.toContain(`class="ad"`);
    expect(none.headers.get("x-origin")).toBe("yes");
  });
});
