/**
 * A team's whole auth worker, as README shows it: `createAuthWorker` with its own binding names,
 * a cookie shared with subdomains, a tighter login limit, no admin routes, and hooks that record
 * what happened (tests read them).
 */
import { createAuthWorker } from "gatehouse-workers/worker";
import { seen } from "./hooks";

export default createAuthWorker({
  bindings: { sessions: "AUTH_KV", userSessions: "PEOPLE", rateLimiter: "LIMITS" },
  cookie: { name: "team_session", domain: "example.com" },
  idleTimeout: 3600,
  // A day's window: the test's four requests never straddle a window boundary.
  rateLimits: { login: { limit: 3, window: 86_400 } },
  routes: { admin: false },
  hooks: {
    onSignIn: (event) => void seen.push({ hook: "onSignIn", event }),
    onSignOut: (event) => void seen.push({ hook: "onSignOut", event }),
    onRevoke: (event) => void seen.push({ hook: "onRevoke", event }),
  },
});
export { AuthService, RateLimiterDO, UserSessions } from "gatehouse-workers/worker";
