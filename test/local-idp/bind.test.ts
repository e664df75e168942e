// Issue 14 finding 8: the local identity provider is a development tool. It binds to loopback by
// default; bound anywhere else it warns that signed webhook deliveries (GET /__local/webhooks) and
// sign-in as any demo user are open to whoever can reach it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { isLoopbackHost, startLocalIdp } from "../../scripts/local-idp/server.ts";

const keys = { apiKey: "sk_test_bind_0123456789", clientId: "client_bind" };

afterEach(() => vi.restoreAllMocks());

describe("where the local identity provider listens", () => {
  it("binds to 127.0.0.1 by default, without a warning", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const idp = await startLocalIdp(keys);
    try {
      expect(new URL(idp.url).hostname).toBe("127.0.0.1");
      expect(warn).not.toHaveBeenCalled();
    } finally {
      await idp.close();
    }
  });

  it("warns when bound to every interface (LOCAL_IDP_HOST=0.0.0.0)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const idp = await startLocalIdp({ ...keys, host: "0.0.0.0" });
    try {
      const said = warn.mock.calls.map((c) => String(c[0])).join("\n");
      expect(said).toContain("not loopback");
      expect(said).toContain("/__local/webhooks");
    } finally {
      await idp.close();
    }
  });

  it.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["[::1]", true],
    ["localhost", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.20", false],
  ])("%s is loopback: %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
