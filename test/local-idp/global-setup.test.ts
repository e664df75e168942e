// The shared globalSetup (scripts/local-idp/vitest-setup.ts) gives tests a running provider.
import { WorkOS } from "@workos-inc/node";
import { expect, inject, it } from "vitest";
import { ADA_ID } from "../../scripts/local-idp/index.ts";

it("provides a running local provider the real SDK can call", async () => {
  const idp = inject("localIdp");
  expect(idp).toMatchObject({ hostname: "127.0.0.1", apiKey: "sk_test_local", clientId: "client_local" });
  const workos = new WorkOS(idp.apiKey, {
    apiHostname: idp.hostname,
    port: idp.port,
    https: false,
    clientId: idp.clientId,
  });
  expect((await workos.userManagement.getUser(ADA_ID)).email).toBe("ada@acme.test");
});
