/**
 * @module
 * A request body (or a response's) read as text with a ceiling: checked against `Content-Length`
 * first and counted while streaming, so a client cannot make a worker buffer more than it allows.
 */

/** The body as text, or null when it is empty, unreadable or over `max` bytes (checked while streaming). */
export async function readBoundedText(request: Pick<Request, "headers" | "body">, max: number): Promise<string | null> {
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > max) return null;
  if (!request.body) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  if (size === 0) return null;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
