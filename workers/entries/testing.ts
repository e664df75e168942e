/**
 * @module gatehouse-workers/testing
 * Test doubles and the injectable clock, never for production code: `FakeIdentityClient` (signs
 * anyone in, so `AuthServiceProvider` refuses it off loopback), `fakeRateLimiter()` (while active,
 * every `KVRateLimiter` and `DORateLimiter` of `gatehouse-workers/rate-limit` defers to it: one
 * module state, whichever subpath imported it) and `setObjectClock` for the Durable Objects.
 */

export { fakeRateLimiter, RateLimiterFake, restoreRateLimiter } from "../../client-sdk/rate-limit";
export { setObjectClock } from "../../durable-objects/clock";
export {
  type FakeCodeOptions,
  type FakeFailure,
  FakeIdentityClient,
  type FakeLogin,
} from "../auth/identity/fake-identity-client";
