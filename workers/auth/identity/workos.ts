/**
 * @module
 * The one place a WorkOS SDK client is built from the environment: the
 * credentials, one retry (or `maxRetries`), and `IDENTITY_API_HOSTNAME` / `IDENTITY_API_PORT` /
 * `IDENTITY_API_HTTPS` to point it at another host (the local identity
 * provider). Used by `DefaultIdentityClient` and the webhook route.
 */
import { WorkOS } from "@workos-inc/node";

export interface WorkOSHostEnv {
  IDENTITY_API_HOSTNAME?: string;
  IDENTITY_API_PORT?: string;
  IDENTITY_API_HTTPS?: string;
}

export function createWorkOS(
  env: WorkOSHostEnv,
  credentials: { apiKey: string; clientId: string; timeoutMs?: number; maxRetries?: number },
): WorkOS {
  const port = env.IDENTITY_API_PORT ? Number(env.IDENTITY_API_PORT) : undefined;
  return new WorkOS(credentials.apiKey, {
    clientId: credentials.clientId,
    ...(credentials.timeoutMs !== undefined ? { timeout: credentials.timeoutMs } : {}),
    maxRetries: credentials.maxRetries ?? 1,
    ...(env.IDENTITY_API_HOSTNAME ? { apiHostname: env.IDENTITY_API_HOSTNAME } : {}),
    ...(port ? { port } : {}),
    ...(env.IDENTITY_API_HTTPS === "false" ? { https: false } : {}),
  });
}
