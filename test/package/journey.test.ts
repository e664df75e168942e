/**
 * Issue 27: a team's journey from the packed tarball, as a test (tooling/package/journey.ts): with
 * the machine's Node, `init` of the auth worker and of an app worker beside it, both running, Ada
 * signed in through the local provider, the app's guarded page greeting her, a revocation at the
 * auth worker refusing the app's next request, both projects type-checking and bundling. The
 * installs are this project's own (setup.ts), linked in. `npm run bench` runs it too (adoption.*).
 */
import { expect, inject, it } from "vitest";
import { teamJourney } from "../../tooling/package/journey.ts";

const pkg = inject("pkg");

it("init both workers, sign in, see the app's page, revoke, refused; both type-check and bundle", async () => {
  const result = await teamJourney(pkg.work, pkg.fixtures["auth-worker"]);
  console.log(`adoption: ${JSON.stringify(result)}`);
  expect(result.nodeVersion).toMatch(/^v\d+\./);
  expect(result.returnOriginListed).toBe(true);
  expect(result.pageStatus).toBe(200);
  expect(result.pageNamesAda).toBe(true);
  expect(result.afterRevokeStatus).toBe(401);
  // No warning a team must read past while following README (ours would say what to do).
  expect(result.warningLines).toBe(0);
}, 240_000);
