import { HtmlTransformer } from "gatehouse-workers/html";
import { expect, it } from "vitest";

const encoder = new TextEncoder();
const HEAD = `<!doctype html><html><head><title>big</title></head><body>`;
const ROW = `<div class="row"><span class="ad">ad</span><p>${"lorem ipsum ".repeat(20)}</p></div>\n`;
const ROWS = 16_000; // about 4 MB

/** Fails instead of hanging when a promise never settles (a buffering transform would deadlock here). */
function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer = 0;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

it("streams: the first output chunk is read before the last input chunk is written", async () => {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const response = new Response(input.readable, { headers: { "content-type": "text/html" } });
  const out = new HtmlTransformer()
    .setMetaTag("description", "streamed")
    .injectScript("/late.js", "body")
    .removeElement(".ad")
    .transform(response);
  const reader = out.body!.getReader();

  // Write the head and a first slice of rows, without closing the input.
  let written = 0;
  const write = (text: string) => {
    const bytes = encoder.encode(text);
    written += bytes.byteLength;
    return writer.write(bytes);
  };
  void write(`${HEAD}${ROW.repeat(100)}`);

  const first = await within(reader.read(), "the first transformed chunk");
  expect(first.done).toBe(false);
  const firstText = new TextDecoder().decode(first.value);
  const total = encoder.encode(`${HEAD}${ROW.repeat(ROWS)}</body></html>`).byteLength;
  expect(written).toBeLessThan(total / 10);
  expect(firstText.startsWith("<!doctype html>")).toBe(true);

  // Feed the rest while reading, then check the whole transformed document.
  const feeding = (async () => {
    for (let i = 100; i < ROWS; i += 500) await write(ROW.repeat(Math.min(500, ROWS - i)));
    await write("</body></html>");
    await writer.close();
  })();
  const chunks = [firstText];
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await within(reader.read(), "the next transformed chunk");
    if (done) break;
    chunks.push(decoder.decode(value, { stream: true }));
  }
  await feeding;
  const text = chunks.join("");
  expect(written).toBe(total);
  expect(chunks.length).toBeGreaterThan(10);
  expect(text).toContain(`<title>big</title><meta name="description" content="streamed"></head>`);
  expect(text).not.toContain("ad</span>");
  expect(text.match(/<div class="row">/g)).toHaveLength(ROWS);
  expect(text.endsWith(`<script src="/late.js"></script></body></html>`)).toBe(true);
});
