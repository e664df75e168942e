/**
 * @module
 * The auth worker's environment rules, as a pure validator: secrets of at
 * least 32 characters that are not placeholders, and a redirect URL that is
 * https unless it is on loopback. No imports: `npm start` (Node) runs the same
 * rules over `.dev.vars` before it starts anything. It never returns a value
 * of a secret, only the variable's name and the rule it broke.
 */

/** Secrets the worker holds; each is checked when set. */
export const SECRET_VARIABLES = [
  "SESSION_SECRET",
  "SESSION_SECRET_PREVIOUS",
  "ADMIN_API_TOKEN",
  "IDENTITY_WEBHOOK_SECRET",
  "SECURITY_EVENTS_WEBHOOK_SECRET",
] as const;

export const MIN_SECRET_LENGTH = 32;

/** Whole values (lower-cased, separators dropped) that are someone's placeholder, not a secret. */
const PLACEHOLDERS = new Set([
  "changeme",
  "changeit",
  "replaceme",
  "secret",
  "password",
  "random",
  "placeholder",
  "example",
  "test",
  "todo",
  "default",
  "insecure",
  "yoursecret",
  "yoursecrethere",
  "secrethere",
  "sessionsecret",
  "admintoken",
  "webhooksecret",
]);

/** Words that make a value a placeholder wherever they stand. */
const PLACEHOLDER_WORDS =
  /change[-_ ]?me|replace[-_ ]?me|placeholder|your[-_ ]?(secret|token|key)|do[-_ ]?not[-_ ]?use/i;
/** Template markers: `__RANDOM__`, `<secret>`, `${SECRET}`, `{{secret}}`. */
const TEMPLATE = /^(__.*__|<.*>|\$\{.*\}|\{\{.*\}\})$/s;
/** Fewer distinct characters than this cannot be a random secret. */
const MIN_DISTINCT = 8;

/** Why a secret is refused (`secretProblem`). */
export type SecretRule = "too_short" | "placeholder" | "low_variety";

export type ConfigRule =
  | SecretRule
  | "required"
  | "not_a_url"
  | "http_not_loopback"
  | "not_bound"
  | "loopback_only"
  | "malformed"
  | "not_organization_ids"
  | "needs_secret"
  | "not_signing_keys";

export interface ConfigProblem {
  variable: string;
  rule: ConfigRule;
}

export type ConfigCheck = { ok: true } | { ok: false; problems: ConfigProblem[] };

/** What each rule means, for the log line that names the variable. */
export const RULE_TEXT: Readonly<Record<ConfigRule, string>> = {
  too_short: `must be at least ${MIN_SECRET_LENGTH} characters (generate one: openssl rand -base64 32)`,
  placeholder: "is a placeholder, not a secret (generate one: openssl rand -base64 32)",
  low_variety: `has fewer than ${MIN_DISTINCT} distinct characters: not a random secret`,
  required: "is required",
  not_a_url: "is not a URL",
  http_not_loopback:
    "is http: on a host that is not loopback; use https (cookies would lose Secure and the __Host- prefix)",
  not_bound: "is not bound: declare it in the wrangler config (kv_namespaces, durable_objects.bindings or services)",
  loopback_only: "is for local development only: it is refused unless AUTH_REDIRECT_URL is on loopback",
  malformed:
    "is not a comma-separated list of label:token pairs (labels: a-z, 0-9, _ and -; each label and token once; `admin` is ADMIN_API_TOKEN's)",
  not_organization_ids: "is not a comma-separated list of organization ids (org_…)",
  needs_secret: "is set without SECURITY_EVENTS_WEBHOOK_SECRET: the deliveries could not be signed",
  not_signing_keys:
    "is not a JSON array of private EC P-256 signing keys (JWK: kty EC, crv P-256, x, y, d and a unique kid each)",
};

/** Why `value` is not an acceptable secret, or null when it is. */
export function secretProblem(value: string): SecretRule | null {
  const normalized = value.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (TEMPLATE.test(value.trim()) || PLACEHOLDERS.has(normalized) || PLACEHOLDER_WORDS.test(value)) {
    return "placeholder";
  }
  if (value.length < MIN_SECRET_LENGTH) return "too_short";
  if (new Set(value).size < MIN_DISTINCT) return "low_variety";
  return null;
}

/** 127.0.0.0/8, ::1 and localhost (with or without brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Why a redirect URL is not acceptable, or null. */
export function redirectUrlProblem(value: string): "not_a_url" | "http_not_loopback" | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "not_a_url";
  }
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return null;
  return url.protocol === "http:" ? "http_not_loopback" : "not_a_url";
}

/**
 * Checks the environment of an auth worker. `required` names the variables that must be set
 * (the deployed worker needs SESSION_SECRET and AUTH_REDIRECT_URL); every secret that is set
 * must pass `secretProblem`, and the redirect URL `redirectUrlProblem`.
 */
export function checkAuthEnvironment(
  env: Readonly<Record<string, unknown>>,
  required: readonly string[] = ["SESSION_SECRET", "AUTH_REDIRECT_URL"],
): ConfigCheck {
  const problems: ConfigProblem[] = [];
  for (const variable of required) {
    const value = env[variable];
    if (typeof value !== "string" || value.length === 0) problems.push({ variable, rule: "required" });
  }
  for (const variable of SECRET_VARIABLES) {
    const value = env[variable];
    if (typeof value !== "string" || value.length === 0) continue;
    const rule = secretProblem(value);
    if (rule) problems.push({ variable, rule });
  }
  const labelled = env.ADMIN_API_TOKENS;
  if (typeof labelled === "string" && labelled.trim() !== "") {
    const pairs = labelledTokens(labelled);
    // Two tokens under one label would make the timeline's "who" ambiguous.
    const clash = pairs?.some((p) => (p.label === "admin" && env.ADMIN_API_TOKEN) || p.token === env.ADMIN_API_TOKEN);
    if (!pairs || clash) problems.push({ variable: "ADMIN_API_TOKENS", rule: "malformed" });
    for (const { label, token } of pairs ?? []) {
      const rule = secretProblem(token);
      if (rule) problems.push({ variable: `ADMIN_API_TOKENS (${label})`, rule });
    }
  }
  // The admin console's operators are the admins of these organizations (a list of ids).
  const consoleOrgs = env.ADMIN_CONSOLE_ORGANIZATIONS;
  if (typeof consoleOrgs === "string" && consoleOrgs.trim() !== "" && consoleOrganizations(consoleOrgs) === null) {
    problems.push({ variable: "ADMIN_CONSOLE_ORGANIZATIONS", rule: "not_organization_ids" });
  }
  const redirect = env.AUTH_REDIRECT_URL;
  if (typeof redirect === "string" && redirect.length > 0) {
    const rule = redirectUrlProblem(redirect);
    if (rule) problems.push({ variable: "AUTH_REDIRECT_URL", rule });
  }
  // Security events leave signed, to an https receiver (http on loopback for development).
  const eventsUrl = env.SECURITY_EVENTS_WEBHOOK_URL;
  if (typeof eventsUrl === "string" && eventsUrl.length > 0) {
    const rule = redirectUrlProblem(eventsUrl);
    if (rule) problems.push({ variable: "SECURITY_EVENTS_WEBHOOK_URL", rule });
    const secret = env.SECURITY_EVENTS_WEBHOOK_SECRET;
    if (typeof secret !== "string" || secret.length === 0) {
      problems.push({ variable: "SECURITY_EVENTS_WEBHOOK_URL", rule: "needs_secret" });
    }
  }
  // A location taken from a request header is the sender's word: development only.
  if (env.GATEHOUSE_DEV_LOCATION_HEADER !== undefined && !onLoopback(redirect)) {
    problems.push({ variable: "GATEHOUSE_DEV_LOCATION_HEADER", rule: "loopback_only" });
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}

/** One log line per problem: the variable and the rule, never the value. */
export function describeProblems(problems: readonly ConfigProblem[]): string[] {
  return problems.map((p) => `${p.variable} ${RULE_TEXT[p.rule]}`);
}

function onLoopback(url: unknown): boolean {
  if (typeof url !== "string") return false;
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The organization ids of `ADMIN_CONSOLE_ORGANIZATIONS` (comma-separated), or null when one is not an id. */
export function consoleOrganizations(list: string | undefined): string[] | null {
  if (!list || list.trim() === "") return [];
  const ids = list
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
  // ids.ts's organization-id pattern, repeated: this module imports nothing (Node runs it from source).
  return ids.every((id) => /^[A-Za-z0-9_-]{1,128}$/.test(id)) ? ids : null;
}

/** `label:token` pairs, or null when malformed (the admin routes read the same format: admin/tokens.ts). */
export function labelledTokens(list: string): { label: string; token: string }[] | null {
  const pairs: { label: string; token: string }[] = [];
  for (const entry of list.split(",")) {
    const colon = entry.indexOf(":");
    const label = entry.slice(0, colon).trim();
    const token = entry.slice(colon + 1).trim();
    if (
      colon < 1 ||
      !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(label) ||
      token === "" ||
      pairs.some((p) => p.label === label || p.token === token)
    ) {
      return null;
    }
    pairs.push({ label, token });
  }
  return pairs;
}
