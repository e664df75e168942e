// The provider's state module on its own: the change events a later webhook sender will subscribe
// to (issue 9), and the sign-in organization rules shared by the page and /__local/codes.
import { describe, expect, it } from "vitest";
import { ACME_ID, ADA_ID, GLOBEX_ID, GRACE_ID, MARGARET_ID } from "../../scripts/local-idp/index.ts";
import { IdpStore, type StoreEvent } from "../../scripts/local-idp/store.ts";

describe("IdpStore", () => {
  it("emits session.created and, once, session.revoked", () => {
    const store = new IdpStore();
    const events: StoreEvent[] = [];
    const unsubscribe = store.subscribe((e) => events.push(e));
    const { session } = store.createSession(ADA_ID, ACME_ID);
    store.endSession(session.id, "revoked");
    store.endSession(session.id, "logout");
    const sessionEvents = events.filter((e) => "session" in e);
    expect(sessionEvents.map((e) => [e.type, e.session.id, e.session.endReason])).toEqual([
      ["session.created", session.id, null],
      ["session.revoked", session.id, "revoked"],
    ]);
    unsubscribe();
    store.createSession(ADA_ID, ACME_ID);
    expect(events).toHaveLength(2);
  });

  it("resolves the organization of a sign-in", () => {
    const store = new IdpStore();
    expect(store.resolveSignIn(ADA_ID, null)).toEqual({ ok: true, value: ACME_ID });
    expect(store.resolveSignIn(GRACE_ID, null)).toEqual({ ok: false, reason: "organization_required" });
    expect(store.resolveSignIn(GRACE_ID, GLOBEX_ID)).toEqual({ ok: true, value: GLOBEX_ID });
    expect(store.resolveSignIn(GRACE_ID, GLOBEX_ID, ACME_ID)).toEqual({ ok: false, reason: "not_a_member" });
    expect(store.resolveSignIn(MARGARET_ID, null)).toEqual({ ok: true, value: null });
    expect(store.resolveSignIn(MARGARET_ID, ACME_ID)).toEqual({ ok: false, reason: "not_a_member" });
    expect(store.resolveSignIn("user_nobody", null)).toEqual({ ok: false, reason: "unknown_user" });
  });

  it("expires pending sign-in requests with the injected clock", () => {
    let now = 1_000_000;
    const store = new IdpStore(() => now);
    const request = store.createAuthorizationRequest({
      clientId: "c",
      redirectUri: "http://localhost/cb",
      state: null,
      codeChallenge: null,
      organizationId: null,
    });
    expect(store.authorizationRequest(request.id)?.id).toBe(request.id);
    now += 10 * 60 * 1000;
    expect(store.authorizationRequest(request.id)).toBeNull();
  });
});
