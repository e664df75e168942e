/**
 * @module
 * Entry of the example consumer worker (wrangler.toml beside it). It only
 * builds the `Application`; the routes live in `routes.ts`. The security
 * headers middleware comes first, so every answer (pages, JSON, redirects,
 * 401/403/404/429/503) carries them. It exports the live counter's Durable
 * Object, the app-connections registry and the `GatehouseRevocations`
 * entrypoint the auth worker's `APP_EXAMPLE` service binding calls when a
 * session ends (wrangler.toml binds the first two).
 */
import { Application } from "gatehouse-workers";
import { SecurityHeadersMiddleware } from "gatehouse-workers/security-headers";
import type { ConsumerEnv } from "./env";
import { ExampleConsumerProvider } from "./routes";

export { GatehouseRevocations, SessionConnections } from "gatehouse-workers/connections";
export type { ConsumerEnv } from "./env";
export { LiveCounter } from "./live-counter";

export default Application.handler<ConsumerEnv>({
  middleware: [new SecurityHeadersMiddleware()],
  providers: [new ExampleConsumerProvider()],
});
