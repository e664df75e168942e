/**
 * The worker under test: the deployed auth worker with its Durable Objects and RPC entrypoint, plus
 * the host's consumer of the SECURITY_EVENTS queue, which keeps every message it receives in the
 * RECEIVED namespace (`queue:<userId>:<message id>`) so tests can count what arrived.
 */
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import authWorker from "../../workers/auth/worker";

export { AuthService, OrganizationSessions, RateLimiterDO, UserSessions } from "../../workers/auth/worker";

export default {
  fetch: (request, env, ctx) => authWorker.fetch(request, env, ctx),
  async queue(batch, env) {
    for (const message of batch.messages) {
      const event = message.body as SecurityEvent;
      await env.RECEIVED.put(
        `queue:${event.userId}:${message.id}`,
        JSON.stringify({ event, attempts: message.attempts, queue: batch.queue }),
      );
      message.ack();
    }
  },
} satisfies ExportedHandler<Cloudflare.Env, SecurityEvent>;
