/**
 * What the local identity provider's globalSetup provides to these tests
 * (mirrors `ProvidedLocalIdp` in scripts/local-idp/vitest-setup.ts, which is Node code).
 */
export {};

declare module "vitest" {
  export interface ProvidedContext {
    localIdp: {
      url: string;
      hostname: string;
      port: number;
      apiKey: string;
      clientId: string;
    };
  }
}
