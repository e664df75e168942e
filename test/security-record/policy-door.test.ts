/**
 * The worker's policy door (`workers/auth/session/policy.ts`): one check for a `SessionPolicy` from
 * every source (options, the admin API's JSON, the console's form, the RPC), with the messages the
 * entry points answer, and the merge of a person's organizations' policies into the strictest.
 */
import { describe, expect, it } from "vitest";
import type { SessionPolicy } from "../../client-sdk/protocol/policy";
import { isSessionPolicy } from "../../client-sdk/protocol/policy";
import {
  deploymentPolicies,
  mergePolicies,
  POLICY_JSON_HINT,
  policyOf,
  validatePolicy,
} from "../../workers/auth/session/policy";

const DEFAULT: SessionPolicy = { maxSessions: null, onLimit: "evict-oldest" };

describe("validatePolicy", () => {
  it("fills missing or null fields with their defaults and drops unknown ones", () => {
    expect(validatePolicy({})).toEqual(DEFAULT);
    expect(validatePolicy({ maxSessions: null, onLimit: null })).toEqual(DEFAULT);
    expect(validatePolicy({ maxSessions: 3, onLimit: "refuse-new", extra: 1 }, "policy")).toEqual({
      maxSessions: 3,
      onLimit: "refuse-new",
    });
  });

  it("names the field (RangeError for the cap, TypeError for onLimit) or the whole", () => {
    for (const maxSessions of [0, 1001, 2.5, "3", false]) {
      expect(() => validatePolicy({ maxSessions }, "policy")).toThrow(
        new RangeError("policy.maxSessions must be a whole number from 1 to 1000, or null"),
      );
    }
    expect(() => validatePolicy({ onLimit: "kick-everyone" }, "policy")).toThrow(
      new TypeError('policy.onLimit must be "evict-oldest" or "refuse-new"'),
    );
    for (const whole of [null, undefined, "five", 5, [1]]) {
      expect(() => validatePolicy(whole, "policy")).toThrow(
        new TypeError("policy must be { maxSessions, onLimit, deviceBindingRoles }"),
      );
      if (whole !== null) {
        expect(() => validatePolicy(whole, "policy", true)).toThrow(
          new TypeError("policy must be { maxSessions, onLimit, deviceBindingRoles } or null"),
        );
      }
    }
    expect(validatePolicy(null, "policy", true)).toBeNull();
    expect(POLICY_JSON_HINT).toBe(
      'Send JSON { "maxSessions": <1-1000 or null>, "onLimit": "evict-oldest" | "refuse-new", "deviceBindingRoles": [<role>, …] | ["*"] | null }',
    );
  });

  it("checks the deployment's options under their own names", () => {
    expect(deploymentPolicies({}).sessionPolicy).toEqual(DEFAULT);
    expect(() => deploymentPolicies({ organizationPolicies: { org_a: { maxSessions: 0 } } })).toThrow(
      /^organizationPolicies\.org_a\.maxSessions/,
    );
  });
});

describe("mergePolicies and policyOf", () => {
  const deployment = deploymentPolicies({
    sessionPolicy: { maxSessions: 10 },
    organizationPolicies: { org_a: { maxSessions: 3 } },
  });

  it("the strictest applies: the lower cap, none the loosest; on a tie, refuse-new; no organization: the default", () => {
    const loose: SessionPolicy = { maxSessions: null, onLimit: "refuse-new" };
    const five: SessionPolicy = { maxSessions: 5, onLimit: "evict-oldest" };
    const fiveRefusing: SessionPolicy = { maxSessions: 5, onLimit: "refuse-new" };
    expect(mergePolicies([loose, five], deployment)).toBe(five);
    expect(mergePolicies([five, fiveRefusing], deployment)).toBe(fiveRefusing);
    expect(mergePolicies([], deployment)).toEqual({ maxSessions: 10, onLimit: "evict-oldest" });
  });

  it("an operator's policy wins, then the configured one, then the default", () => {
    const set: SessionPolicy = { maxSessions: 1, onLimit: "refuse-new" };
    expect(policyOf("org_a", set, deployment)).toEqual({ policy: set, source: "operator" });
    expect(policyOf("org_a", null, deployment)).toEqual({
      policy: { maxSessions: 3, onLimit: "evict-oldest" },
      source: "configured",
    });
    expect(policyOf("org_b", null, deployment)).toEqual({
      policy: { maxSessions: 10, onLimit: "evict-oldest" },
      source: "default",
    });
  });

  it("an answer's shape is the contract's", () => {
    expect(isSessionPolicy(DEFAULT)).toBe(true);
    expect(isSessionPolicy({ maxSessions: "3", onLimit: "evict-oldest" })).toBe(false);
    expect(isSessionPolicy(null)).toBe(false);
  });
});
