/**
 * @module
 * Serves one of the browser scripts the package ships as a string (client/live-script.ts,
 * ../live/client/embed-script.ts): `Cache-Control: no-cache` with a content ETag, so browsers
 * revalidate and get 304 until a deploy changes it.
 */
import { sha256Hex } from "../../../client-sdk/core/digest";
import { LIVE_SCRIPT } from "./client/live-script";

const etags = new Map<string, Promise<string>>();

export async function serveScript(request: Request, script: string): Promise<Response> {
  let etag = etags.get(script);
  if (!etag) {
    etag = sha256Hex(script).then((hex) => `"${hex.slice(0, 32)}"`);
    etags.set(script, etag);
  }
  const tag = await etag;
  const headers = {
    "Content-Type": "text/javascript; charset=utf-8",
    "Cache-Control": "no-cache",
    ETag: tag,
  };
  const match = request.headers.get("If-None-Match");
  if (match?.split(",").some((t) => t.trim().replace(/^W\//, "") === tag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : script, { headers });
}

/** `GET /account/live.js`: the account pages' script. */
export function serveLiveScript(request: Request): Promise<Response> {
  return serveScript(request, LIVE_SCRIPT);
}
