/**
 * @module
 * The start-up check's view of the transmitter's secrets: the signing keys (`checkSigningKeys`)
 * and each stream-management receiver's bearer token, as problems naming the variable and the
 * rule it broke (never a value).
 */
import { checkSigningKeys, SSF_SIGNING_KEYS } from "../../../../durable-objects/ssf-streams";
import { type ConfigProblem, secretProblem } from "../../config/rules";

export function signingKeysProblems(env: object, variable = SSF_SIGNING_KEYS): ConfigProblem[] {
  const check = checkSigningKeys((env as Record<string, unknown>)[variable], variable);
  return check.ok ? [] : [{ variable, rule: check.rule }];
}

/** Each receiver token variable: required, and a real secret (not short, not a placeholder). */
export function receiverTokenProblems(env: object, variables: readonly string[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const variable of variables) {
    const value = (env as Record<string, unknown>)[variable];
    if (typeof value !== "string" || value === "") {
      problems.push({ variable, rule: "required" });
      continue;
    }
    const rule = secretProblem(value);
    if (rule) problems.push({ variable, rule });
  }
  return problems;
}
