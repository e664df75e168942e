/**
 * Reference RFC 8935 push endpoint (Push-Based SET Delivery Using HTTP), written from the text only:
 * an auxiliary miniflare worker that every global `fetch` of the worker under test reaches through
 * `outboundService`. Plain JavaScript without imports: miniflare loads auxiliary workers without a
 * bundler. It imports nothing from the project.
 *
 * Every request to a host other than `receiver.control` is a push. It is kept as it arrived
 * ({ url, path, method, headers (plain object, lower-case names), body (raw text), status, err,
 * violations, receivedAt }) and answered per RFC 8935:
 *
 * - §2.1: a SET is sent with POST (anything else: 405 with `Allow: POST`, a general HTTP error, §2.3);
 *   its Content-Type MUST be application/secevent+jwt and its body the SET, a JWT (else 400
 *   `invalid_request`); the Accept header MUST be application/json (a missing or other Accept is
 *   recorded in `violations`, not refused).
 * - §2.2: a SET that passes is acknowledged with 202 Accepted and an empty body.
 * - §2.3 / §2.4: a SET error is 400 with Content-Type application/json and {"err", "description"}.
 *
 * It never verifies signatures or claims (the tests do, with set.ts); the body checks it makes are
 * those possible without keys: three dot-separated base64url parts whose first two decode to JSON
 * objects (RFC 7515 §7.1, RFC 7519 §7.2).
 *
 * Control API (host `receiver.control`, also through `fetch`):
 * - POST /respond?path=<url-path>&status=<n>[&err=<code>][&description=<text>][&times=<n>][&location=<url>]:
 *   the next n (default 1) well-formed pushes to that path answer `status`; with `err`, the RFC 8935
 *   error JSON (only with status 400), else a plain-text body (e.g. 5xx); with `location`, a
 *   `Location` header (a redirect, for a transmitter that must not follow it). Rules for a path
 *   queue up in order.
 * - GET /received[?path=<url-path>]: the kept pushes (for that path), oldest first, as JSON.
 * - POST /reset: forget every push and rule.
 */

const CONTROL_HOST = "receiver.control";

/** Every push, in arrival order. */
const received = [];
/** url path → queue of { status, err, description, remaining }. */
const rules = new Map();

function json(value, status = 200, extraHeaders = {}) {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "Content-Type": "application/json", ...extraHeaders },
  });
}

/** RFC 8935 §2.3: 400, application/json, {"err": <§2.4 code>, "description": <text>}. */
function setError(err, description) {
  return json({ err, description }, 400);
}

function mediaType(value) {
  return (value ?? "").split(";")[0].trim().toLowerCase();
}

function decodeBase64urlJson(part) {
  const base64 = part.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
}

/** null when the body looks like a JWS in compact serialization, else the reason it does not. */
function compactJwsProblem(body) {
  const parts = body.split(".");
  if (parts.length !== 3) return "the body is not a JWT: three dot-separated base64url parts expected (RFC 7515 §7.1)";
  if (parts.some((part) => part.length === 0 || !/^[A-Za-z0-9_-]+$/.test(part))) {
    return "a part of the JWT is empty or not base64url (RFC 7515 §7.1)";
  }
  for (const [index, name] of [
    [0, "protected header"],
    [1, "claims set"],
  ]) {
    let value;
    try {
      value = decodeBase64urlJson(parts[index]);
    } catch {
      return `the ${name} is not base64url-encoded UTF-8 JSON (RFC 7515 §7.1 / RFC 7519 §7.2)`;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return `the ${name} is not a JSON object (RFC 7519 §7.2)`;
    }
  }
  return null;
}

function acceptsJson(accept) {
  if (!accept) return false;
  return accept.split(",").some((range) => mediaType(range) === "application/json");
}

async function control(request, url) {
  const path = url.searchParams.get("path");
  if (url.pathname === "/respond" && request.method === "POST") {
    const status = Number(url.searchParams.get("status"));
    const times = Number(url.searchParams.get("times") ?? "1");
    const err = url.searchParams.get("err");
    if (!path?.startsWith("/")) return new Response("path=<url path> is required", { status: 400 });
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      return new Response("status must be an HTTP status code (200-599)", { status: 400 });
    }
    if (!Number.isInteger(times) || times < 1) return new Response("times must be a positive integer", { status: 400 });
    if (err !== null && status !== 400) {
      return new Response("err goes with status 400 only (RFC 8935 §2.3)", { status: 400 });
    }
    const queue = rules.get(path) ?? [];
    queue.push({
      status,
      err,
      description: url.searchParams.get("description"),
      location: url.searchParams.get("location"),
      remaining: times,
    });
    rules.set(path, queue);
    return new Response(null, { status: 204 });
  }
  if (url.pathname === "/received" && request.method === "GET") {
    return json(path === null ? received : received.filter((push) => push.path === path));
  }
  if (url.pathname === "/reset" && request.method === "POST") {
    received.length = 0;
    rules.clear();
    return new Response(null, { status: 204 });
  }
  return new Response("unknown control request", { status: 404 });
}

/** The next scripted answer for `path`, consuming one use of its first rule; null if none. */
function nextRule(path) {
  const queue = rules.get(path);
  if (!queue || queue.length === 0) return null;
  const rule = queue[0];
  rule.remaining -= 1;
  if (rule.remaining <= 0) queue.shift();
  return rule;
}

async function push(request, url) {
  const body = await request.text();
  const headers = Object.fromEntries(request.headers);
  const violations = [];
  if (!acceptsJson(headers.accept)) {
    violations.push(`Accept is ${JSON.stringify(headers.accept ?? null)}, RFC 8935 §2.1 requires application/json`);
  }

  let response;
  let err = null;
  if (request.method !== "POST") {
    violations.push(`method ${request.method}: RFC 8935 §2.1 transmits SETs with POST`);
    response = new Response("SETs are delivered with POST (RFC 8935 §2.1)", {
      status: 405,
      headers: { Allow: "POST" },
    });
  } else if (mediaType(headers["content-type"]) !== "application/secevent+jwt") {
    const problem = `Content-Type ${JSON.stringify(headers["content-type"] ?? null)} is not application/secevent+jwt (RFC 8935 §2.1)`;
    violations.push(problem);
    err = "invalid_request";
    response = setError(err, problem);
  } else {
    const problem = compactJwsProblem(body);
    if (problem) {
      violations.push(problem);
      err = "invalid_request";
      response = setError(err, problem);
    } else {
      const rule = nextRule(url.pathname);
      if (!rule) {
        response = new Response(null, { status: 202 }); // RFC 8935 §2.2
      } else if (rule.err !== null) {
        err = rule.err;
        response = setError(rule.err, rule.description ?? `refused by the test (${rule.err})`);
      } else {
        const headers = rule.location ? { Location: rule.location } : {};
        response =
          rule.status === 202 || rule.status === 204
            ? new Response(null, { status: rule.status, headers })
            : new Response(rule.description ?? `scripted ${rule.status}`, { status: rule.status, headers });
      }
    }
  }

  received.push({
    url: request.url,
    path: url.pathname,
    method: request.method,
    headers,
    body,
    status: response.status,
    err,
    violations,
    receivedAt: Date.now(),
  });
  return response;
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.hostname === CONTROL_HOST) return control(request, url);
    return push(request, url);
  },
};
