/**
 * @module
 * Where a request comes from, coarsely (country, region, city, data center), for the timeline and
 * the devices list. By default the edge's `request.cf`; offline that is one fixed placeholder, so
 * the source is an option (`SessionManagerOptions.location`), and local development may read the
 * `X-Gatehouse-Dev-Location` header instead (`GATEHOUSE_DEV_LOCATION_HEADER=1`, refused off loopback
 * by the configuration check). It describes; nothing is ever decided from it.
 */
import type { SessionLocation } from "../../../client-sdk/protocol/security-record";

export type { SessionLocation };

/** Reads the location of a request, or null when it has none. */
export type LocationSource = (request: Request) => SessionLocation | null;

/** The header of `devHeaderLocation`: `country;region;city;colo`, each part optional. */
export const DEV_LOCATION_HEADER = "X-Gatehouse-Dev-Location";

const MAX_PART = 64;

/** The edge's view of the request (`request.cf`): null when the runtime attached none. */
export const edgeLocation: LocationSource = (request) => {
  const cf = (request as Request & { cf?: Record<string, unknown> }).cf;
  if (!cf) return null;
  const location = {
    country: part(cf.country),
    region: part(cf.region),
    city: part(cf.city),
    colo: part(cf.colo),
  };
  return Object.values(location).some((v) => v !== null) ? location : null;
};

/** Development only: the location a test or a developer put in `X-Gatehouse-Dev-Location`, else the edge's. */
export const devHeaderLocation: LocationSource = (request) => {
  const header = request.headers.get(DEV_LOCATION_HEADER);
  if (!header) return edgeLocation(request);
  const [country, region, city, colo] = header.split(";").map((p) => part(p.trim()));
  return { country: country ?? null, region: region ?? null, city: city ?? null, colo: colo ?? null };
};

function part(value: unknown): string | null {
  if (typeof value !== "string") return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const text = value.trim().replace(/[\u0000-\u001f\u007f]/g, "");
  return text ? text.slice(0, MAX_PART) : null;
}
