/**
 * The transmitter's JWKS host in these tests: an auxiliary worker that every global `fetch` of the
 * worker under test reaches (vitest.config.ts, `outboundService`). It serves the key set it was last
 * told to publish (RFC 7517 §5, `application/jwk-set+json`), or the failure status it was told, and
 * keeps every request so a test sees exactly when the receiver fetched. Plain JavaScript: miniflare
 * loads auxiliary workers without a bundler. It holds public keys only and checks nothing.
 *
 * Control (from a test, also through `fetch`): POST https://jwks.control/publish (body: the set),
 * POST https://jwks.control/fail?status=<n> (0 serves again), GET https://jwks.control/requests.
 */

let published = { keys: [] };
let failStatus = 0;
/** Every request for the set, in arrival order: { method, url, accept, status }. */
const requests = [];

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.hostname === "jwks.control") {
      if (url.pathname === "/publish" && request.method === "POST") {
        published = await request.json();
        return new Response(null, { status: 204 });
      }
      if (url.pathname === "/fail" && request.method === "POST") {
        failStatus = Number(url.searchParams.get("status") ?? "500");
        return new Response(null, { status: 204 });
      }
      if (url.pathname === "/requests") return Response.json(requests);
      return new Response("unknown control path", { status: 404 });
    }
    const status = failStatus || 200;
    requests.push({ method: request.method, url: request.url, accept: request.headers.get("Accept"), status });
    if (status !== 200) return new Response("jwks host down", { status });
    return new Response(JSON.stringify(published), { headers: { "Content-Type": "application/jwk-set+json" } });
  },
};
