/**
 * Test helpers: read transformed HTML back with HTMLRewriter (an independent
 * parse of the output, not string matching) and decode attribute values
 * with a reference decoder written for the tests.
 */

export interface Seen {
  tag: string;
  attributes: [string, string][];
}

/** Every element matching `selector` in `html`, with its raw attributes, in document order. */
export async function elements(html: string, selector = "*"): Promise<Seen[]> {
  const seen: Seen[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element(el) {
        seen.push({ tag: el.tagName, attributes: [...el.attributes].map(([k, v]) => [k!, v!]) });
      },
    })
    .transform(new Response(html, { headers: { "content-type": "text/html" } }))
    .text();
  return seen;
}

/** Reference decoder of HTML character references (named ones the SDK may emit, and numeric). */
export function decode(raw: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'" };
  return raw.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, ref: string) => {
    if (ref.startsWith("#x") || ref.startsWith("#X")) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    return named[ref] ?? m;
  });
}

export function html(body: string, headers: HeadersInit = { "content-type": "text/html" }, status = 200): Response {
  return new Response(body, { headers, status });
}
