/**
 * Fixture worker for the HtmlTransformer tests: serves one page through a
 * transformer whose A/B bucket comes from the `bucket` cookie, the way a
 * host worker would wire it (one transformer built once, reused per request).
 */
import { HtmlTransformer } from "gatehouse-workers/html";

export const PAGE = `<!doctype html><html><head><title>Shop</title><meta name="description" content="old"></head>
<body><h1 id="hero">Welcome</h1><div class="ad">buy</div><p>rest</p></body></html>`;

const page = new HtmlTransformer()
  .injectScript("/app.js")
  .setMetaTag("description", "new")
  .removeElement(".ad")
  .abTest("#hero", { a: "Hello A", b: "Hello B" }, (request) => {
    const match = /(?:^|;\s*)bucket=([^;]*)/.exec(request.headers.get("cookie") ?? "");
    return match?.[1] ?? "control";
  });

export default {
  async fetch(request: Request): Promise<Response> {
    const origin = new Response(PAGE, {
      headers: { "content-type": "text/html; charset=utf-8", "x-origin": "yes" },
    });
    return page.transform(origin, request);
  },
} satisfies ExportedHandler;
