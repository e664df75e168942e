/**
 * @module
 * One look for every page: a small stylesheet (no framework; light and dark by
 * `prefers-color-scheme`, fluid on a phone, 44 px tap targets, visible focus, AA contrast) and a
 * page shell with a header saying who is signed in and where to go. Pure functions and one string
 * constant: nothing runs at import time, and it imports nothing (the local identity provider runs
 * it in Node straight from source). Everything interpolated is escaped; `body` is trusted markup.
 * It never emits a `style` attribute or a script, so a hash-based CSP allows the whole page.
 */

/**
 * The shared stylesheet. Colours are custom properties, so a page's own CSS can use them
 * (`var(--muted)`, `var(--surface)`, …). Contrast (WCAG AA, ≥ 4.5:1) holds for text and links on
 * `--bg` and `--surface` in both schemes, and for `--on-accent` on `--accent` and `--danger`.
 */
export const PAGE_STYLES: string = `:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--link:#0969da;--surface:#f6f8fa;--border:#d1d9e0;--accent:#0969da;--on-accent:#fff;--danger:#cf222e;--note:#fff8c5;--note-border:#d4a72c}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--link:#4493f8;--surface:#151b23;--border:#3d444d;--accent:#1f6feb;--danger:#b62324;--note:#2c2108;--note-border:#9e6a03}}
*,::before,::after{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;-webkit-text-size-adjust:100%;overflow-wrap:anywhere}
a{color:var(--link);text-underline-offset:.15em}
:focus-visible{outline:3px solid var(--link);outline-offset:2px}
#main:focus{outline:0}
.skip{position:absolute;left:.5rem;top:-4rem;padding:.5rem 1rem;background:var(--bg);z-index:1}
.skip:focus{top:.5rem}
.site{background:var(--surface);border-bottom:1px solid var(--border)}
.site .bar,main{max-width:48rem;margin:0 auto;padding:.25rem 1rem}
.site .bar{display:flex;flex-wrap:wrap;align-items:center;gap:0 1rem}
.brand{font-weight:600;color:var(--fg);text-decoration:none;padding:.625rem 0}
.site ul{display:flex;flex-wrap:wrap;margin:0;padding:0;list-style:none}
.site li a{display:block;padding:.625rem .5rem}
.site a[aria-current=page]{color:var(--fg);font-weight:600;text-decoration-thickness:3px}
.site .who{margin-left:auto;display:flex;flex-wrap:wrap;align-items:center;gap:0 .75rem}
.site form{margin:0}
main{padding-top:1rem;padding-bottom:3rem}
h1{font-size:1.6rem;line-height:1.25;margin:1rem 0}
h2{font-size:1.2rem;margin:2rem 0 .5rem}
.muted{color:var(--muted)}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--surface);padding:.1em .3em;border-radius:4px}
form{margin:.75rem 0}
label{display:block;margin:.5rem 0}
button,.button,input,select{font:inherit;min-height:2.75rem;border-radius:6px;max-width:100%}
button,.button{display:inline-block;padding:.5rem 1rem;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer;text-decoration:none}
button.secondary,.site button{background:var(--bg);color:var(--link);border-color:var(--border)}
button.danger{background:var(--danger);border-color:var(--danger)}
input,select{padding:.5rem .6rem;border:1px solid var(--muted);background:var(--bg);color:var(--fg)}
.alert,[data-gatehouse-impersonation]{display:block;background:var(--note);border-left:4px solid var(--note-border);padding:.5rem .75rem;margin:.75rem 0}
[data-gatehouse-impersonation]{margin:0}
.cards,.sessions,.events{list-style:none;padding:0}
.cards>li,.sessions>li,.events>li{border:1px solid var(--border);border-radius:8px;padding:.75rem 1rem;margin:.75rem 0}
strong.alert{margin:0 0 .25rem}
strong.alert+br{display:none}
table{border-collapse:collapse;width:100%}
td,th{text-align:left;vertical-align:top;padding:.4rem;border-bottom:1px solid var(--border)}`;

/** A link of the header (or anywhere): visible text and a URL. */
export interface PageLink {
  readonly label: string;
  readonly href: string;
}

/** Who the header says is signed in. */
export interface PagePerson {
  readonly name: string;
  readonly email: string;
}

/** The header's sign-out button: a POST form, with its CSRF field when the worker needs one. */
export interface PageSignOut {
  readonly action: string;
  /** The CSRF token, sent as the field `csrfField` (default `_csrf`). */
  readonly csrf?: string;
  readonly csrfField?: string;
  /** The button's text (default "Sign out"). */
  readonly label?: string;
}

/** What the header shows: the product (linking home), where to go, and who is signed in. */
export interface PageHeader {
  readonly brand: PageLink;
  readonly links?: readonly PageLink[];
  /** The `href` of this page among `links`: marked `aria-current="page"`. */
  readonly current?: string;
  /** Signed in: who, and the sign-out form. */
  readonly person?: PagePerson | null;
  readonly signOut?: PageSignOut | null;
  /** Signed out: where to sign in. */
  readonly signIn?: PageLink | null;
}

/** A whole HTML document. `body` and `styles` are TRUSTED (never pass user input unescaped). */
export interface PageDocument {
  readonly title: string;
  readonly body: string;
  /** The site header; none when absent or null. */
  readonly header?: PageHeader | null;
  /** CSS appended to `PAGE_STYLES` in the same `<style>` block. */
  readonly styles?: string;
  /** Extra markup for `<head>` (e.g. `<meta name="robots" content="noindex">`). */
  readonly head?: string;
  readonly lang?: string;
}

// The SDK's escapeHtml (./escape.ts), repeated so this module imports nothing: Node runs the
// local identity provider from source, where an extensionless import would not resolve.
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function link(l: PageLink, current?: string): string {
  return `<a href="${esc(l.href)}"${l.href === current ? ' aria-current="page"' : ""}>${esc(l.label)}</a>`;
}

/** The `<header>`: brand, navigation, and who is signed in with a sign-out button (or a sign-in link). */
export function renderPageHeader(header: PageHeader): string {
  const links = header.links ?? [];
  const nav = links.length
    ? `<nav aria-label="Main"><ul>${links.map((l) => `<li>${link(l, header.current)}</li>`).join("")}</ul></nav>`
    : "";
  const person = header.person;
  const who = person
    ? `<span>Signed in as <strong>${esc(person.name)}</strong>${person.email && person.email !== person.name ? ` <span class="muted">${esc(person.email)}</span>` : ""}</span>`
    : "";
  const out = header.signOut;
  const form = out
    ? `<form method="post" action="${esc(out.action)}">${out.csrf === undefined ? "" : `<input type="hidden" name="${esc(out.csrfField ?? "_csrf")}" value="${esc(out.csrf)}">`}<button type="submit">${esc(out.label ?? "Sign out")}</button></form>`
    : "";
  const signIn = !person && header.signIn ? link(header.signIn) : "";
  const end = who || form || signIn ? `<div class="who">${who}${form}${signIn}</div>` : "";
  return `<header class="site"><div class="bar"><a class="brand" href="${esc(header.brand.href)}">${esc(header.brand.label)}</a>${nav}${end}</div></header>`;
}

/**
 * A full HTML document in the shared look: viewport meta, the stylesheet in one `<style>` block
 * (allowed by hash under a strict CSP), a skip link and the header when there is one, and `body`
 * inside `<main id="main">` (so `body` must not hold a `<main>` of its own).
 * @example
 * ```ts
 * const html = renderPage({
 *   title: "Dashboard",
 *   body: `<h1>Dashboard</h1><p>Hello, ${escapeHtml(user.firstName)}.</p>`,
 *   header: { brand: { label: "My app", href: "/" }, links: [{ label: "Dashboard", href: "/dashboard" }], current: "/dashboard" },
 * });
 * ```
 */
export function renderPage(doc: PageDocument): string {
  const header = doc.header ? `<a class="skip" href="#main">Skip to content</a>${renderPageHeader(doc.header)}` : "";
  return `<!doctype html>
<html lang="${esc(doc.lang ?? "en")}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.title)}</title>${doc.head ?? ""}
<style>${PAGE_STYLES}${doc.styles ?? ""}</style>
</head><body>${header}<main id="main" tabindex="-1">${doc.body}</main></body></html>`;
}
