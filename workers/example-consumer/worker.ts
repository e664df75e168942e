/**
 * @module
 * Entry of the example consumer worker (wrangler.toml beside it). It only
 * builds the `Application`; the routes live in `routes.ts`. The security
 * headers middleware comes first, so every answer (pages, JSON, redirects,
 * 401/403/404/429/503) carries them.
 */
import { Application } from "gatehouse-workers";
import { SecurityHeadersMiddleware } from "gatehouse-workers/security-headers";
import type { ConsumerEnv } from "./env";
import { ExampleConsumerProvider } from "./routes";

export type { ConsumerEnv } from "./env";

export default Application.handler<ConsumerEnv>({
  middleware: [new SecurityHeadersMiddleware()],
  providers: [new ExampleConsumerProvider()],
});
