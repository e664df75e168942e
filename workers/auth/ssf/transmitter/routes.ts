/**
 * @module
 * The transmitter's public documents: `GET /.well-known/ssf-configuration` (SSF 1.0 §6.1 metadata
 * at the §6.2 path) and `GET /ssf/jwks.json` (the public signing keys, RFC 7517 §5). Registered
 * only when `ssf` is configured. No stream management yet, so the metadata names no management
 * endpoint and no `authorization_schemes` (§6.2: a claim with zero elements is omitted).
 */
import type { Application } from "../../../../client-sdk/core/application";
import { jsonError } from "../../../../client-sdk/core/errors";
import { type AuthEnv, publicOrigin } from "../../provider";
import { loadSigningKeys } from "./keys";
import type { ResolvedSsfTransmitterOptions } from "./options";

export const SSF_CONFIGURATION_PATH = "/.well-known/ssf-configuration";
export const SSF_JWKS_PATH = "/ssf/jwks.json";
/** RFC 8935: push delivery. */
export const PUSH_DELIVERY = "urn:ietf:rfc:8935";
/** SSF 1.0 final. */
export const SSF_SPEC_VERSION = "1_0";

/** SSF 1.0 §6.1 metadata as we publish it. */
export interface SsfTransmitterMetadata {
  spec_version: string;
  issuer: string;
  jwks_uri: string;
  delivery_methods_supported: string[];
}

export function transmitterMetadata(issuer: string): SsfTransmitterMetadata {
  return {
    spec_version: SSF_SPEC_VERSION,
    issuer,
    jwks_uri: `${issuer}${SSF_JWKS_PATH}`,
    delivery_methods_supported: [PUSH_DELIVERY],
  };
}

/** Receivers cache both documents; five minutes keeps a rotation's new key visible soon after it is added. */
const CACHE = "public, max-age=300";

export function registerSsfTransmitter<E extends AuthEnv>(
  app: Application<E>,
  options: ResolvedSsfTransmitterOptions,
): void {
  const issuer = () => options.issuer ?? publicOrigin(app.container);
  app.hono.get(SSF_CONFIGURATION_PATH, () =>
    Response.json(transmitterMetadata(issuer()), { headers: { "Cache-Control": CACHE } }),
  );
  app.hono.get(SSF_JWKS_PATH, async () => {
    try {
      const keys = await loadSigningKeys(
        (app.env as Record<string, unknown>)[options.signingKeys],
        options.signingKeys,
      );
      return Response.json(keys.jwks, { headers: { "Cache-Control": CACHE } });
    } catch (err) {
      console.error(`gatehouse: ssf: ${(err as Error).message}`);
      return jsonError(503, "service_unavailable", "This service is not available right now.");
    }
  });
}
