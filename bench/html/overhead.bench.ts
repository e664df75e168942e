/**
 * html.overhead_ratio: HtmlTransformer with five operations over a 1 MB page
 * versus the same five handlers written directly on HTMLRewriter, in the
 * same run. Both build the Response and read the whole transformed body.
 */
import { HtmlTransformer } from "gatehouse-workers/html";
import { it } from "vitest";
import { ratio, record } from "../harness";

const ROW = `<div class="row"><a class="cta" href="/buy">Buy</a><span class="ad">ad</span><p>${"lorem ipsum dolor ".repeat(8)}</p></div>\n`;
const HEAD = `<!doctype html><html><head><title>Bench</title><meta name="description" content="old"><meta charset="utf-8"></head><body><h1 id="hero">Welcome</h1>`;
const PAGE = `${HEAD}${ROW.repeat(Math.ceil((1024 * 1024 - HEAD.length) / ROW.length))}</body></html>`;
const HTML_HEADERS = { "content-type": "text/html; charset=utf-8" };
const VARIANTS: Record<string, string> = { a: "<b>Buy now</b>", b: "<i>Get it</i>" };
const assign = (request: Request) => (request.headers.get("x-bucket") === "b" ? "b" : "a");

const transformer = new HtmlTransformer()
  .injectScript("/app.js")
  .setMetaTag("description", "Fast pages")
  .replaceElement("#hero", "<span>Hello</span>")
  .removeElement(".ad")
  .abTest(".cta", VARIANTS, assign);

/** The same five operations, hand-written on HTMLRewriter. */
function direct(response: Response, request: Request): Response {
  let metaSeen = false;
  const variant = VARIANTS[assign(request)]!;
  const html = { html: true };
  return new HTMLRewriter()
    .on("head", {
      element(el) {
        el.onEndTag((end) => {
          const meta = metaSeen ? "" : `<meta name="description" content="Fast pages">`;
          end.before(`${meta}<script src="/app.js"></script>`, html);
        });
      },
    })
    .on('meta[name="description"]', {
      element(el) {
        metaSeen = true;
        el.setAttribute("content", "Fast pages");
      },
    })
    .on("#hero", {
      element(el) {
        el.setInnerContent("<span>Hello</span>", html);
      },
    })
    .on(".ad", {
      element(el) {
        el.remove();
      },
    })
    .on(".cta", {
      element(el) {
        el.setInnerContent(variant, html);
      },
    })
    .transform(response);
}

it("html.overhead_ratio", async (ctx) => {
  const request = new Request("http://x/", { headers: { "x-bucket": "b" } });
  const [ours, theirs] = await Promise.all([
    transformer.transform(new Response(PAGE, { headers: HTML_HEADERS }), request).text(),
    direct(new Response(PAGE, { headers: HTML_HEADERS }), request).text(),
  ]);
  if (ours !== theirs) throw new Error("the two pipelines must produce the same page");

  const result = await ratio(
    () => transformer.transform(new Response(PAGE, { headers: HTML_HEADERS }), request).arrayBuffer(),
    () => direct(new Response(PAGE, { headers: HTML_HEADERS }), request).arrayBuffer(),
    { batches: 40, batch: 3, warmup: 10 },
  );
  record(ctx, "html.overhead_ratio", { value: result.ratio, unit: "x", goal: "<= 1.10" });
  console.log("html.overhead_ratio", { ...result, pageBytes: PAGE.length });
});
