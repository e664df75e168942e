import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("auth worker", () => {
  it("answers the health route", async () => {
    const res = await exports.default.fetch("http://gatehouse.test/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, service: "gatehouse-auth" });
  });

  it("answers an unknown route with 404 JSON", async () => {
    const res = await exports.default.fetch("http://gatehouse.test/nowhere");
    expect(res.status).toBe(404);
    expect((await res.json()) as { error: string }).toMatchObject({ error: "not_found" });
  });
});
