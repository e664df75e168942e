/**
 * A ready Vitest globalSetup: starts one local identity provider for a test run and hands its
 * coordinates to the tests with `provide("localIdp", …)` (read them with `inject("localIdp")`).
 * Use it as `globalSetup: ["<root>/scripts/local-idp/vitest-setup.ts"]`; it stops the server at teardown.
 */
import type { TestProject } from "vitest/node";
import { LOCAL_IDP_DEFAULTS, startLocalIdp } from "./server.ts";

/** What `inject("localIdp")` returns. */
export interface ProvidedLocalIdp {
  url: string;
  hostname: string;
  port: number;
  apiKey: string;
  clientId: string;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const apiKey = LOCAL_IDP_DEFAULTS.apiKey;
  const clientId = LOCAL_IDP_DEFAULTS.clientId;
  // The test worlds use https://auth.example.com as their (never contacted) callback origin.
  const idp = await startLocalIdp({ apiKey, clientId, redirectOrigins: ["https://auth.example.com"] });
  const provided: ProvidedLocalIdp = {
    url: idp.url,
    hostname: new URL(idp.url).hostname,
    port: idp.port,
    apiKey,
    clientId,
  };
  project.provide("localIdp", provided);
  return () => idp.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    localIdp: ProvidedLocalIdp;
  }
}
