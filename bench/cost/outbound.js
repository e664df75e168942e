/**
 * The cost bench's outside world (vitest.config.ts `outboundService`): every global `fetch` of the
 * bench's worker and its objects arrives here, already counted where it left (bindings.ts
 * `countOutboundFetch`). A request to the local identity provider (`IDENTITY_API_ORIGIN`) goes on to
 * it unchanged; every other one (the shared-signals pushes, and the bench's reads of what they
 * delivered on `receiver.control`) goes to the reference RFC 8935 push endpoint
 * (test/ssf-reference/push-receiver.js, bound as `PUSH_RECEIVER`). It never changes a request or an
 * answer. Plain JavaScript without imports: miniflare loads auxiliary workers without a bundler.
 */
export default {
  fetch(request, env) {
    if (new URL(request.url).origin === env.IDENTITY_API_ORIGIN) return fetch(request);
    return env.PUSH_RECEIVER.fetch(request);
  },
};
