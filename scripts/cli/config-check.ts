/**
 * The CLI's check of a `.dev.vars`: the worker's own rules (`checkAuthEnvironment`) plus the
 * secrets those rules do not cover yet (the security-event webhook's), checked with the same
 * `secretProblem`. Pure; a problem names the variable and the rule, never the value.
 */
import {
  type ConfigCheck,
  type ConfigProblem,
  checkAuthEnvironment,
  SECRET_VARIABLES,
  secretProblem,
} from "../../workers/auth/config/rules.ts";

/** Secrets a generated project holds that `SECRET_VARIABLES` does not list. */
export const EXTRA_SECRET_VARIABLES = ["SECURITY_EVENTS_WEBHOOK_SECRET"] as const;

/** `checkAuthEnvironment(vars, required)` plus `secretProblem` on each extra secret that is set. */
export function checkDevVars(vars: Readonly<Record<string, string>>, required?: readonly string[]): ConfigCheck {
  const verdict = checkAuthEnvironment(vars, required);
  const problems: ConfigProblem[] = verdict.ok ? [] : [...verdict.problems];
  for (const variable of EXTRA_SECRET_VARIABLES) {
    // Once the worker's rules cover it, they report it; never twice.
    if ((SECRET_VARIABLES as readonly string[]).includes(variable)) continue;
    const value = vars[variable];
    if (value === undefined || value === "") continue;
    const rule = secretProblem(value);
    if (rule) problems.push({ variable, rule });
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}
