/**
 * The five IDENTITY_* variables that point a worker's WorkOS SDK at a local identity provider.
 * Pure, no imports: the CLI writes them into .dev.vars, and the test harnesses (Node and workerd)
 * bind them. The API key is the local provider's own, never a real WorkOS credential.
 */

export interface LocalIdentityCoordinates {
  hostname: string;
  port: number;
  apiKey: string;
  clientId: string;
}

export interface IdentityVariables {
  IDENTITY_API_KEY: string;
  IDENTITY_CLIENT_ID: string;
  IDENTITY_API_HOSTNAME: string;
  IDENTITY_API_PORT: string;
  IDENTITY_API_HTTPS: "false";
}

export function identityVariables(idp: LocalIdentityCoordinates): IdentityVariables {
  return {
    IDENTITY_API_KEY: idp.apiKey,
    IDENTITY_CLIENT_ID: idp.clientId,
    IDENTITY_API_HOSTNAME: idp.hostname,
    IDENTITY_API_PORT: String(idp.port),
    IDENTITY_API_HTTPS: "false",
  };
}
