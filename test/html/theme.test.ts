/**
 * Issue 19, "one look for every page": `renderPage` and `renderPageHeader` from the package's entry.
 * Read back with HTMLRewriter (an independent parse): the document's frame, the header (who, where
 * to go, the sign-out POST with its CSRF field), escaping of everything interpolated, and nothing a
 * strict CSP would refuse (no script, no style attribute, one `<style>` block).
 */
import fc from "fast-check";
import { PAGE_STYLES, type PageHeader, renderPage, renderPageHeader } from "gatehouse-workers/html";
import { describe, expect, it } from "vitest";
import { decode, elements } from "./helpers";

const HEADER: PageHeader = {
  brand: { label: "Gatehouse", href: "/" },
  links: [
    { label: "Home", href: "/" },
    { label: "Sessions", href: "/account/sessions" },
  ],
  current: "/account/sessions",
  person: { name: "Ada Lovelace", email: "ada@example.com" },
  signOut: { action: "/auth/logout", csrf: "tok.en" },
};

const attr = (seen: { attributes: [string, string][] }, name: string) => seen.attributes.find(([k]) => k === name)?.[1];

/** The visible text of the first element matching `selector`. */
async function textOf(html: string, selector: string): Promise<string> {
  let text = "";
  let inside = false;
  await new HTMLRewriter()
    .on(selector, {
      element(el) {
        if (inside) return;
        inside = true;
        el.onEndTag(() => {
          inside = false;
        });
      },
      text(chunk) {
        text += chunk.text;
      },
    })
    .transform(new Response(html, { headers: { "content-type": "text/html" } }))
    .text();
  return decode(text);
}

describe("renderPage", () => {
  it("is a whole document: language, viewport, title, one style block, the body inside <main id=main>", async () => {
    const html = renderPage({ title: "Your sessions", body: `<h1>Your sessions</h1>`, header: HEADER });
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(attr((await elements(html, "html"))[0]!, "lang")).toBe("en");
    expect(attr((await elements(html, 'meta[name="viewport"]'))[0]!, "content")).toBe(
      "width=device-width,initial-scale=1",
    );
    expect(await textOf(html, "title")).toBe("Your sessions");
    expect(await textOf(html, "style")).toBe(PAGE_STYLES);
    const main = await elements(html, "main");
    expect(main).toHaveLength(1);
    expect(attr(main[0]!, "id")).toBe("main");
    expect(await textOf(html, "main h1")).toBe("Your sessions");
  });

  it("styles light and dark, visible focus and tap-sized controls, in a couple of kB", () => {
    expect(PAGE_STYLES).toContain("color-scheme:light dark");
    expect(PAGE_STYLES).toMatch(/@media \(prefers-color-scheme:dark\)\{:root\{--bg:#0d1117/);
    expect(PAGE_STYLES).toMatch(/:focus-visible\{outline:3px solid/);
    expect(PAGE_STYLES).toMatch(/button,\.button,input,select\{[^}]*min-height:2\.75rem/);
    expect(PAGE_STYLES.length).toBeLessThan(3 * 1024);
  });

  it("puts a skip link first and the header after it; without a header, neither", async () => {
    const html = renderPage({ title: "t", body: "<p>x</p>", header: HEADER });
    const first = (await elements(html, "body > *"))[0]!;
    expect(first.tag).toBe("a");
    expect(attr(first, "href")).toBe("#main");
    expect(await textOf(html, "a.skip")).toBe("Skip to content");
    expect(await elements(html, "header.site")).toHaveLength(1);

    const bare = renderPage({ title: "t", body: "<p>x</p>" });
    expect(await elements(bare, "a.skip")).toEqual([]);
    expect(await elements(bare, "header")).toEqual([]);
    expect((await elements(bare, "body > *")).map((e) => e.tag)).toEqual(["main"]);
  });

  it("adds the page's own CSS to the same block and its head markup", async () => {
    const html = renderPage({
      title: "t",
      body: "",
      styles: ".x{color:red}",
      head: '<meta name="robots" content="noindex">',
    });
    expect(await elements(html, "style")).toHaveLength(1);
    expect(await textOf(html, "style")).toBe(`${PAGE_STYLES}.x{color:red}`);
    expect(attr((await elements(html, 'meta[name="robots"]'))[0]!, "content")).toBe("noindex");
  });

  it("carries no script and no style attribute (a hash-based CSP allows the whole page)", async () => {
    const html = renderPage({ title: "t", body: "<p>x</p>", header: HEADER });
    expect(await elements(html, "script")).toEqual([]);
    expect(
      (await elements(html)).filter((e) => e.attributes.some(([k]) => k === "style" || k.startsWith("on"))),
    ).toEqual([]);
  });
});

describe("renderPageHeader", () => {
  it("says who is signed in and where to go; this page's link is marked current", async () => {
    const html = renderPageHeader(HEADER);
    expect(await textOf(html, "a.brand")).toBe("Gatehouse");
    const links = await elements(html, "nav a");
    expect(links.map((l) => attr(l, "href"))).toEqual(["/", "/account/sessions"]);
    expect(links.map((l) => attr(l, "aria-current") ?? null)).toEqual([null, "page"]);
    expect(attr((await elements(html, "nav"))[0]!, "aria-label")).toBe("Main");
    expect(await textOf(html, ".who > span")).toBe("Signed in as Ada Lovelace ada@example.com");
  });

  it("signs out with a POST form carrying the CSRF field (never a link)", async () => {
    const html = renderPageHeader(HEADER);
    const forms = await elements(html, "form");
    expect(forms.map((f) => [attr(f, "method"), attr(f, "action")])).toEqual([["post", "/auth/logout"]]);
    const field = (await elements(html, "form input"))[0]!;
    expect([attr(field, "type"), attr(field, "name"), attr(field, "value")]).toEqual(["hidden", "_csrf", "tok.en"]);
    expect(await textOf(html, "form button")).toBe("Sign out");

    const own = renderPageHeader({ ...HEADER, signOut: { action: "/logout" } });
    expect(await elements(own, "form input")).toEqual([]);
    const named = renderPageHeader({ ...HEADER, signOut: { action: "/out", csrf: "t", csrfField: "token" } });
    expect(attr((await elements(named, "form input"))[0]!, "name")).toBe("token");
  });

  it("signed out: a sign-in link and no sign-out form", async () => {
    const html = renderPageHeader({
      ...HEADER,
      person: null,
      signOut: null,
      signIn: { label: "Sign in", href: "/auth/login" },
    });
    expect(await elements(html, "form")).toEqual([]);
    expect(html).not.toContain("Signed in as");
    const signIn = (await elements(html, ".who a"))[0]!;
    expect(attr(signIn, "href")).toBe("/auth/login");
  });

  it("escapes every value it interpolates (names, emails, labels, URLs, the token)", async () => {
    const hostile = fc.string({ minLength: 1, maxLength: 40 }).map((s) => `${s}"><script>x</script>'&`);
    await fc.assert(
      fc.asyncProperty(hostile, hostile, hostile, async (name, label, token) => {
        const html = renderPage({
          title: name,
          body: "",
          header: {
            brand: { label, href: label },
            links: [{ label, href: token }],
            current: token,
            person: { name, email: token },
            signOut: { action: label, csrf: token },
          },
        });
        expect(await elements(html, "script")).toEqual([]);
        expect(decode(attr((await elements(html, "nav a"))[0]!, "href")!)).toBe(token);
        expect(decode(attr((await elements(html, "form input"))[0]!, "value")!)).toBe(token);
        expect(await textOf(html, ".who strong")).toBe(name);
        expect(await textOf(html, "title")).toBe(name);
      }),
      { numRuns: 50 },
    );
  });
});
