/**
 * @module
 * The transmitter's public documents: `GET /.well-known/ssf-configuration` (SSF 1.0 §7.1 metadata
 * at the §7.2 path) and `GET /ssf/jwks.json` (the public signing keys, RFC 7517 §5), and with
 * `ssf.receivers` the stream management API (management.ts), whose endpoints the metadata then
 * names with `authorization_schemes` (bearer tokens, RFC 6750) and `default_subjects: "ALL"`.
 * Without receivers the metadata names no endpoint (§7.2.3: a claim with zero elements is omitted).
 */
import type { Application } from "../../../../client-sdk/core/application";
import { jsonError } from "../../../../client-sdk/core/errors";
import { PUSH_DELIVERY } from "../../../../client-sdk/protocol/shared-signals";
import { loadSigningKeys } from "../../../../durable-objects/ssf-streams";
import { type AuthEnv, publicOrigin } from "../../provider";
import {
  registerSsfManagement,
  SSF_ADD_SUBJECT_PATH,
  SSF_REMOVE_SUBJECT_PATH,
  SSF_STATUS_PATH,
  SSF_STREAM_PATH,
  SSF_VERIFY_PATH,
} from "./management";
import type { ResolvedSsfTransmitterOptions } from "./options";

export const SSF_CONFIGURATION_PATH = "/.well-known/ssf-configuration";
export const SSF_JWKS_PATH = "/ssf/jwks.json";
/** RFC 6750: the management API takes bearer tokens. */
const BEARER_SCHEME = "urn:ietf:rfc:6750";
/** SSF 1.0 final. */
export const SSF_SPEC_VERSION = "1_0";

/** SSF 1.0 §7.1 metadata as we publish it. */
export interface SsfTransmitterMetadata {
  spec_version: string;
  issuer: string;
  jwks_uri: string;
  delivery_methods_supported: string[];
  configuration_endpoint?: string;
  status_endpoint?: string;
  add_subject_endpoint?: string;
  remove_subject_endpoint?: string;
  verification_endpoint?: string;
  authorization_schemes?: { spec_urn: string }[];
  default_subjects?: "ALL" | "NONE";
}

/** The metadata; `management`: the stream management API is on (receivers are configured). */
export function transmitterMetadata(issuer: string, management = false): SsfTransmitterMetadata {
  return {
    spec_version: SSF_SPEC_VERSION,
    issuer,
    jwks_uri: `${issuer}${SSF_JWKS_PATH}`,
    delivery_methods_supported: [PUSH_DELIVERY],
    ...(management
      ? {
          configuration_endpoint: `${issuer}${SSF_STREAM_PATH}`,
          status_endpoint: `${issuer}${SSF_STATUS_PATH}`,
          add_subject_endpoint: `${issuer}${SSF_ADD_SUBJECT_PATH}`,
          remove_subject_endpoint: `${issuer}${SSF_REMOVE_SUBJECT_PATH}`,
          verification_endpoint: `${issuer}${SSF_VERIFY_PATH}`,
          authorization_schemes: [{ spec_urn: BEARER_SCHEME }],
          default_subjects: "ALL" as const,
        }
      : {}),
  };
}

/** Receivers cache both documents; five minutes keeps a rotation's new key visible soon after it is added. */
const CACHE = "public, max-age=300";

export function registerSsfTransmitter<E extends AuthEnv>(
  app: Application<E>,
  options: ResolvedSsfTransmitterOptions,
): void {
  const issuer = () => options.issuer ?? publicOrigin(app.container);
  const management = options.receivers.length > 0;
  app.hono.get(SSF_CONFIGURATION_PATH, () =>
    Response.json(transmitterMetadata(issuer(), management), { headers: { "Cache-Control": CACHE } }),
  );
  // The env view names the streams object's binding SSF_STREAMS whatever it is called (authEnvOf).
  registerSsfManagement(app, { receivers: options.receivers, issuer, binding: "SSF_STREAMS" });
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
