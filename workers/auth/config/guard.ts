/**
 * @module
 * Fail-closed start-up check of the deployed auth worker. A Worker has no
 * start-up phase, so the environment is checked once per `env` object (once
 * per isolate) on the first request or RPC call; while it fails, every
 * request answers a generic 503 and every RPC call throws a 503 error. The log
 * names the variable and the rule, the client sees neither.
 */
import { AuthError } from "../errors";
import { errorPage } from "../pages";
import { type ConfigCheck, type ConfigProblem, checkAuthEnvironment, describeProblems } from "./rules";

const verdicts = new WeakMap<object, ConfigCheck>();

/** What the worker was configured with beyond env (`createAuthWorker`'s options); all optional. */
export interface CheckedOptions {
  /** The session KV namespace's binding name. Default `SESSIONS`. */
  sessionsBinding?: string;
  /** Durable Object bindings the options named: each must be bound. */
  requiredBindings?: readonly string[];
  /** The redirect URL of the options, checked instead of `AUTH_REDIRECT_URL` (then not required). */
  redirectUrl?: string;
  /** The revocation mode of the options; `strict` (here or in `GATEHOUSE_REVOCATION`) needs the session objects. */
  revocation?: string;
  /** The session objects' binding name. Default `USER_SESSIONS`. */
  userSessionsBinding?: string;
  /** Service bindings the options named (the `apps`): each must be bound, and the session objects too. */
  serviceBindings?: readonly string[];
  /** Further checks of env an opted-in feature brings (the shared-signals signing keys). */
  problems?: (env: object) => ConfigProblem[];
}

/**
 * The environment's verdict, computed (and logged when it fails) once per env object: the
 * variables' rules (with the options' redirect URL in place of `AUTH_REDIRECT_URL`), the session
 * KV namespace and every binding the options named, under their configured names, and the session
 * objects whenever strict revocation is asked for.
 */
export function configVerdict(env: object, options: CheckedOptions = {}): ConfigCheck {
  let verdict = verdicts.get(env);
  if (!verdict) {
    const given = env as Readonly<Record<string, unknown>>;
    const vars = options.redirectUrl ? { ...given, AUTH_REDIRECT_URL: options.redirectUrl } : given;
    const problems: ConfigProblem[] = [];
    const rules = checkAuthEnvironment(vars);
    if (!rules.ok) problems.push(...rules.problems);
    const sessions = options.sessionsBinding ?? "SESSIONS";
    if (!isKvNamespace(given[sessions])) problems.push({ variable: sessions, rule: "not_bound" });
    for (const name of options.requiredBindings ?? []) {
      if (!isObjectNamespace(given[name])) problems.push({ variable: name, rule: "not_bound" });
    }
    const services = options.serviceBindings ?? [];
    for (const name of services) {
      if (!isServiceBinding(given[name])) problems.push({ variable: name, rule: "not_bound" });
    }
    const objects = options.userSessionsBinding ?? "USER_SESSIONS";
    const strict = (options.revocation ?? given.GATEHOUSE_REVOCATION) === "strict";
    // The apps' notices leave the user's session object: it must be bound whatever the mode.
    if (
      (strict || services.length > 0) &&
      !isObjectNamespace(given[objects]) &&
      !problems.some((p) => p.variable === objects)
    ) {
      problems.push({ variable: objects, rule: "not_bound" });
    }
    if (options.problems) problems.push(...options.problems(given));
    verdict = problems.length === 0 ? { ok: true } : { ok: false, problems };
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
export function assertConfigured(env: object, options?: CheckedOptions): void {
  if (!configVerdict(env, options).ok) {
    throw new AuthError("service_unavailable", { status: 503, message: "This service is not available right now." });
  }
}

function isKvNamespace(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as KVNamespace).getWithMetadata === "function";
}

/** A service binding (a `Fetcher`; with an entrypoint, an RPC stub whose methods are functions). */
function isServiceBinding(value: unknown): boolean {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as Fetcher).fetch === "function"
  );
}

function isObjectNamespace(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && typeof (value as DurableObjectNamespace).idFromName === "function"
  );
}
