/**
 * @module
 * Entry of the example consumer worker (wrangler.toml beside it). It only
 * builds the `Application`; the routes live in `routes.ts`.
 */
import { Application } from "gatehouse";
import type { ConsumerEnv } from "./env";
import { ExampleConsumerProvider } from "./routes";

export type { ConsumerEnv } from "./env";

export default Application.handler<ConsumerEnv>({ providers: [new ExampleConsumerProvider()] });
