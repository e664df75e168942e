import { describe, expect, it } from "vitest";
import {
  carryOut,
  createStream,
  freshPath,
  freshUser,
  manager,
  pushesTo,
  receivers,
  signIn,
  verified,
} from "./helpers";
import { SIEM } from "./worker";

describe("smoke", () => {
  it("pushes a session-revoked SET", async () => {
    const siem = receivers.siem();
    const path = freshPath();
    const streamId = await createStream(siem, SIEM, path);
    const user = freshUser();
    const a = await signIn(user);
    await manager().revokeSession(a);
    await carryOut(user);
    const pushes = await pushesTo(path);
    expect(pushes).toHaveLength(1);
    const [set] = await verified(pushes, SIEM);
    expect(set!.eventType).toBe("https://schemas.openid.net/secevent/caep/event-type/session-revoked");
    expect(streamId).toBeTruthy();
  });
});
