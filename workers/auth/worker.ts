/**
 * @module
 * The deployed auth worker: `Application` with `AuthServiceProvider`, the
 * health route and the home page. It holds no logic of its own; everything
 * lives in the modules it wires.
 */
import { Application } from "gatehouse";
import { registerHomePage } from "./app/home";
import { type AuthEnv, AuthServiceProvider } from "./provider";

export interface AuthWorkerEnv extends AuthEnv {
  SESSIONS: KVNamespace;
}

export default Application.handler<AuthWorkerEnv>({
  providers: [new AuthServiceProvider<AuthWorkerEnv>()],
  setup(app) {
    app.hono.get("/health", (c) => c.json({ ok: true, service: "gatehouse-auth" }));
    registerHomePage(app);
  },
});
