// Issue 14 finding 8: the local identity provider is a development tool. It binds to loopback by
// default; bound anywhere else it warns that signed webhook deliveries (GET /__local/webhooks) and
// sign-in as any demo user are open to whoever can reach it.
import { request as httpRequest } from "node:http";
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

describe("DNS rebinding: the Host header of a request", () => {
  // A page on evil.example whose DNS name now points at 127.0.0.1 reaches the provider with its own Host.
  const request = (port: number, host: string, path = "/__local/health") =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, path, headers: { Host: host } }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });

  it("answers loopback names and its public URL's host, and refuses any other name with 421", async () => {
    const idp = await startLocalIdp({ ...keys, publicUrl: "http://idp.dev.test:9999" });
    try {
      for (const host of [`127.0.0.1:${idp.port}`, `localhost:${idp.port}`, `[::1]:${idp.port}`, "idp.dev.test:9999"]) {
        expect((await request(idp.port, host)).status, host).toBe(200);
      }
      const rebound = await request(idp.port, `evil.example:${idp.port}`, "/__local/codes");
      expect(rebound.status).toBe(421);
      expect(JSON.parse(rebound.body)).toMatchObject({ code: "host_not_allowed" });
    } finally {
      await idp.close();
    }
  });

  it("answers any name when deliberately bound beyond loopback (it warned)", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const idp = await startLocalIdp({ ...keys, host: "0.0.0.0" });
    try {
      expect((await request(idp.port, "devbox.lan")).status).toBe(200);
    } finally {
      await idp.close();
    }
  });
});
