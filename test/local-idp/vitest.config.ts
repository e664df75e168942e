import { defineProject } from "vitest/config";

// The local identity provider is a Node server, so this project runs in Node (no workerd pool):
// it drives the real @workos-inc/node SDK against scripts/local-idp over loopback HTTP. Most files
// start their own server (to inject a clock); global-setup.test.ts uses the shared globalSetup.
export default defineProject({
  test: {
    name: "local-idp",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    environment: "node",
    globalSetup: ["../../scripts/local-idp/vitest-setup.ts"],
  },
});
