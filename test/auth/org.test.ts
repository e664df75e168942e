import { OrgResolver } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";

const req = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe("OrgResolver", () => {
  it("subdomain: the first label, ignoring www and api", () => {
    const r = new OrgResolver(["subdomain"]);
    expect(r.resolve(req("https://acme.example.com/x"))).toEqual({ slug: "acme" });
    expect(r.resolve(req("https://www.example.com/x"))).toBeNull();
    expect(r.resolve(req("https://api.example.com/x"))).toBeNull();
    expect(r.resolve(req("https://example.com/x"))).toBeNull();
    expect(r.resolve(req("http://127.0.0.1:8787/x"))).toBeNull();
    expect(r.resolve(req("http://acme.localhost:8787/x"))).toEqual({ slug: "acme" });
  });

  it("path-prefix: /org/<slug>/...", () => {
    const r = new OrgResolver(["path-prefix"]);
    expect(r.resolve(req("https://example.com/org/acme/settings"))).toEqual({ slug: "acme" });
    expect(r.resolve(req("https://example.com/org/acme"))).toEqual({ slug: "acme" });
    expect(r.resolve(req("https://example.com/auth/login"))).toBeNull();
    expect(r.resolve(req("https://example.com/org/"))).toBeNull();
  });

  it("header: X-Org-Slug", () => {
    const r = new OrgResolver(["header"]);
    expect(r.resolve(req("https://example.com/", { "X-Org-Slug": "globex" }))).toEqual({ slug: "globex" });
    expect(r.resolve(req("https://example.com/"))).toBeNull();
  });

  it("tries strategies in order and returns the first match", () => {
    const both = req("https://acme.example.com/org/globex/x", { "X-Org-Slug": "initech" });
    expect(new OrgResolver(["subdomain", "path-prefix", "header"]).resolve(both)).toEqual({ slug: "acme" });
    expect(new OrgResolver(["path-prefix", "subdomain"]).resolve(both)).toEqual({ slug: "globex" });
    expect(new OrgResolver(["header", "subdomain"]).resolve(both)).toEqual({ slug: "initech" });
  });

  it.each(["ACME", "ac_me", "-acme", "acme-", "a".repeat(64), "ac me", "acme;drop", ""])(
    "treats the invalid slug %j as no match and moves on",
    (slug) => {
      const r = new OrgResolver(["header", "path-prefix"]);
      expect(r.resolve(req("https://example.com/org/acme", { "X-Org-Slug": slug }))).toEqual({ slug: "acme" });
    },
  );

  it("accepts 63-character slugs and refuses unknown strategies", () => {
    const slug = `a${"b".repeat(61)}c`;
    expect(new OrgResolver(["header"]).resolve(req("https://e.com/", { "X-Org-Slug": slug }))).toEqual({ slug });
    expect(() => new OrgResolver(["cookie" as never])).toThrowError(/Unknown organization strategy "cookie"/);
  });

  it("is structurally an OrgResolvable", () => {
    const resolvable: { resolve(request: Request): { slug: string } | null } = new OrgResolver(["header"]);
    expect(resolvable.resolve(req("https://e.com/"))).toBeNull();
  });
});
