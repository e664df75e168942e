/**
 * @module
 * The deployed auth worker: `Application` with the auth providers, the
 * health route, and the Durable Object classes wrangler.toml binds.
 * It holds no logic of its own; everything lives in the modules it wires.
 */
import { Application } from "gatehouse";

export interface AuthWorkerEnv {
  SESSIONS: KVNamespace;
}

export default Application.handler<AuthWorkerEnv>((app) => {
  app.hono.get("/health", (c) => c.json({ ok: true, service: "gatehouse-auth" }));
});
