/**
 * @module
 * Fail-closed start-up check of the deployed auth worker. A Worker has no
 * start-up phase, so the environment is checked once per `env` object (once
 * per isolate) on the first request or RPC call; while it fails, every
 * request answers a generic 503 and every RPC call throws a 503 error. The log
 * names the variable and the rule, the client sees neither.
 */
import { AuthError } from "../errors";
import { errorPage } from "../routes/pages";
import { type ConfigCheck, checkAuthEnvironment, describeProblems } from "./rules";

const verdicts = new WeakMap<object, ConfigCheck>();

/**
 * The environment's verdict, computed (and logged when it fails) once per env object: the
 * variables' rules, and the session KV namespace bound under `sessionsBinding` (the name the
 * worker was configured with, e.g. `createAuthWorker({ bindings: { sessions: "AUTH_KV" } })`).
 */
export function configVerdict(env: object, sessionsBinding = "SESSIONS"): ConfigCheck {
  let verdict = verdicts.get(env);
  if (!verdict) {
    const vars = env as Readonly<Record<string, unknown>>;
    verdict = checkAuthEnvironment(vars);
    if (!isKvNamespace(vars[sessionsBinding])) {
      const problem = { variable: sessionsBinding, rule: "not_bound" } as const;
      verdict = { ok: false, problems: [...(verdict.ok ? [] : verdict.problems), problem] };
    }
    if (!verdict.ok) {
      for (const line of describeProblems(verdict.problems)) {
        console.error(`gatehouse: configuration refused: ${line}. Every request answers 503 until it is fixed.`);
      }
    }
    verdicts.set(env, verdict);
  }
  return verdict;
}

/** The answer to every request while the configuration is refused: nothing about why. */
export function unavailableResponse(request: Request): Response {
  const res = errorPage(request, 503, "service_unavailable", "This service is not available right now.", {
    title: "Service unavailable",
  });
  res.headers.set("Retry-After", "60");
  return res;
}

/** Throws the RPC-side refusal (status 503: consumers map it to `auth_service_unavailable`). */
export function assertConfigured(env: object, sessionsBinding?: string): void {
  if (!configVerdict(env, sessionsBinding).ok) {
    throw new AuthError("service_unavailable", { status: 503, message: "This service is not available right now." });
  }
}

function isKvNamespace(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as KVNamespace).getWithMetadata === "function";
}
