/**
 * @module
 * The Content-Security-Policy of the account pages: scripts from this origin
 * only (the live bundle), connections to this origin only (fetch and the
 * live WebSocket), inline `<style>` blocks allowed by their SHA-256 hash,
 * forms posting back here only, no framing. It never allows inline script,
 * and names only the configured public origin (never the request's `Host`).
 */

const styleHashes = new Map<string, string>();
const encoder = new TextEncoder();

async function styleHash(css: string): Promise<string> {
  let hash = styleHashes.get(css);
  if (!hash) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(css)));
    hash = `'sha256-${btoa(String.fromCharCode(...digest))}'`;
    if (styleHashes.size > 32) styleHashes.clear();
    styleHashes.set(css, hash);
  }
  return hash;
}

/** The policy for `html` served by the worker whose public origin is `origin`: each `<style>` block in it is allowed by hash. */
export async function contentSecurityPolicy(html: string, origin: string): Promise<string> {
  const styles = await Promise.all([...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => styleHash(m[1]!)));
  // 'self' covers same-origin ws:/wss: in CSP Level 3; the explicit origin keeps older browsers working.
  const url = new URL(origin);
  const socketOrigin = `${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${styles.length > 0 ? [...new Set(styles)].join(" ") : "'none'"}`,
    `connect-src 'self' ${socketOrigin}`,
    "img-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** Returns `response` (an HTML page) with the policy and its companion headers set; `origin` is the worker's public one. */
export async function withContentSecurityPolicy(response: Response, origin: string): Promise<Response> {
  const html = await response.text();
  const out = new Response(html, response);
  out.headers.set("Content-Security-Policy", await contentSecurityPolicy(html, origin));
  out.headers.set("X-Content-Type-Options", "nosniff");
  out.headers.set("Referrer-Policy", "same-origin");
  return out;
}
