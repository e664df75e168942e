/**
 * Fault injection for the local identity provider: "the next N calls to endpoint X fail with
 * status S and/or hang for D ms". Lets Gatehouse tests exercise provider 5xx and timeouts.
 * Only the `/__local/faults` control sets faults; a fault never changes provider state.
 */
import { LocalIdpError } from "./errors.ts";

/** The named endpoints a fault can target. */
export const FAULT_ENDPOINTS = [
  "authorize",
  "authenticate",
  "users",
  "organizations",
  "organization_memberships",
  "sessions_revoke",
  "sessions_logout",
  "jwks",
] as const;
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];

export interface Fault {
  endpoint: FaultEndpoint;
  /** Status to answer with; null = answer normally (after the delay). */
  status: number | null;
  /** Milliseconds to wait before answering (or failing); 0 = none. */
  delayMs: number;
  /** How many more calls this fault applies to. */
  remaining: number;
}

const MAX_DELAY_MS = 120_000;

/** Validates the JSON body of `POST /__local/faults` into a fault. */
export function parseFault(body: Record<string, unknown>): Fault {
  const { endpoint, status = null, delay_ms: delayMs = 0, count = 1 } = body;
  if (typeof endpoint !== "string" || !(FAULT_ENDPOINTS as readonly string[]).includes(endpoint)) {
    throw new LocalIdpError("invalid_request", 400, `endpoint must be one of: ${FAULT_ENDPOINTS.join(", ")}`);
  }
  if (status !== null && (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 599)) {
    throw new LocalIdpError("invalid_request", 400, "status must be an integer from 400 to 599");
  }
  if (!Number.isInteger(delayMs) || (delayMs as number) < 0 || (delayMs as number) > MAX_DELAY_MS) {
    throw new LocalIdpError("invalid_request", 400, `delay_ms must be an integer from 0 to ${MAX_DELAY_MS}`);
  }
  if (status === null && delayMs === 0) {
    throw new LocalIdpError("invalid_request", 400, "give status, delay_ms, or both");
  }
  if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 1000) {
    throw new LocalIdpError("invalid_request", 400, "count must be an integer from 1 to 1000");
  }
  return {
    endpoint: endpoint as FaultEndpoint,
    status: status as number | null,
    delayMs: delayMs as number,
    remaining: count as number,
  };
}

/** Pending faults, consumed first-in first-out per endpoint. */
export class FaultRegistry {
  #faults: Fault[] = [];

  add(fault: Fault): void {
    this.#faults.push({ ...fault });
  }

  /** Consumes one call of the oldest fault for `endpoint`, if any. */
  take(endpoint: FaultEndpoint): Fault | null {
    const fault = this.#faults.find((f) => f.endpoint === endpoint);
    if (!fault) return null;
    fault.remaining--;
    if (fault.remaining <= 0) this.#faults.splice(this.#faults.indexOf(fault), 1);
    return { ...fault };
  }

  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }
}

/** The wire form of a fault in `/__local/faults` answers. */
export function faultJson(fault: Fault): Record<string, unknown> {
  return { endpoint: fault.endpoint, status: fault.status, delay_ms: fault.delayMs, remaining: fault.remaining };
}
