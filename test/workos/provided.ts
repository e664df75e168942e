/**
 * What the WorkOS emulator's globalSetup provides to these tests (mirrors `ProvidedWorkos` in
 * test/node/workos-setup.ts, which is Node code).
 */
export {};

declare module "vitest" {
  export interface ProvidedContext {
    workos: {
      url: string;
      hostname: string;
      port: number;
      apiKey: string;
      clientId: string;
      userIds: Record<string, string>;
      organizationIds: Record<string, string>;
      membershipIds: Record<string, string>;
      relayUrl: string;
      webhookSecret: string;
    };
  }
}
