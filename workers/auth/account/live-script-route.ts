/**
 * @module
 * `GET /account/live.js`: the live script of the account page, from the string
 * the package ships (client/live-script.ts). `Cache-Control: no-cache` with a
 * content ETag: browsers revalidate and get 304 until a deploy changes it.
 */
import { sha256Hex } from "../../../client-sdk/core/digest";
import { LIVE_SCRIPT } from "./client/live-script";

let etag: Promise<string> | undefined;

export async function serveLiveScript(request: Request): Promise<Response> {
  etag ??= sha256Hex(LIVE_SCRIPT).then((hex) => `"${hex.slice(0, 32)}"`);
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
  return new Response(request.method === "HEAD" ? null : LIVE_SCRIPT, { headers });
}
