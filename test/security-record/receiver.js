/**
 * The host's side of the security-event webhook in these tests: an auxiliary worker that every
 * global `fetch` of the worker under test reaches (vitest.config.ts, `outboundService`). It keeps
 * each delivery as it arrived (headers and raw body, so a test can verify the signature itself)
 * and answers 200, or 500 while it was told to fail for that user. Plain JavaScript: miniflare
 * loads auxiliary workers without a bundler. It never verifies anything: the tests do.
 *
 * Control (from a test, also through `fetch`): POST https://receiver.control/fail?user=<id>&times=<n>,
 * GET https://receiver.control/received?user=<id>.
 */

/** Every delivery, in arrival order: { userId, eventId, signature, status, body }. */
const deliveries = [];
/** user id → deliveries still to refuse with 500. */
const failing = new Map();

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.hostname === "receiver.control") {
      const user = url.searchParams.get("user") ?? "";
      if (url.pathname === "/fail" && request.method === "POST") {
        failing.set(user, Number(url.searchParams.get("times") ?? "1"));
        return new Response(null, { status: 204 });
      }
      if (url.pathname === "/received") return Response.json(deliveries.filter((d) => d.userId === user));
      return new Response("unknown control path", { status: 404 });
    }
    const body = await request.text();
    let userId = null;
    try {
      userId = JSON.parse(body).userId ?? null;
    } catch {
      // Not JSON: kept with no user, so no test ever counts it.
    }
    const remaining = failing.get(userId) ?? 0;
    const status = remaining > 0 ? 500 : 200;
    if (remaining > 0) failing.set(userId, remaining - 1);
    deliveries.push({
      userId,
      method: request.method,
      url: request.url,
      contentType: request.headers.get("Content-Type"),
      eventId: request.headers.get("Gatehouse-Event-Id"),
      signature: request.headers.get("Gatehouse-Signature"),
      status,
      body,
    });
    return status === 200 ? new Response("ok") : new Response("receiver down", { status });
  },
};
