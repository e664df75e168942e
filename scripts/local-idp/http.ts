/**
 * Small HTTP helpers for the local identity provider: replies as plain values (status, headers,
 * body) that the server writes, body reading (raw text, or JSON / form parsed) with a size limit,
 * and the redirect allow-list. Handlers stay pure functions of a request; never writes to a socket itself.
 */
import type { IncomingMessage } from "node:http";
import { LocalIdpError } from "./errors.ts";

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const NO_STORE = { "cache-control": "no-store" };

export function json(status: number, data: unknown, headers: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...NO_STORE, ...headers },
    body: JSON.stringify(data),
  };
}

/** HTML page headers: no scripts, no framing, no referrer leaking codes or state. */
export function html(status: number, page: string): Reply {
  return {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy":
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      ...NO_STORE,
    },
    body: page,
  };
}

export function redirect(location: string): Reply {
  return { status: 302, headers: { location, "referrer-policy": "no-referrer", ...NO_STORE }, body: "" };
}

const MAX_BODY_BYTES = 64 * 1024;

/** Reads the raw body as UTF-8 text; `payload_too_large` (413) past `maxBytes`. */
export async function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new LocalIdpError("payload_too_large", 413, "Request body too large");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new LocalIdpError("payload_too_large", 413, "Request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Reads a JSON or form-encoded body into an object. An empty body is `{}`. */
export async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readText(req, MAX_BODY_BYTES);
  if (text.trim() === "") return {};
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  if (type.startsWith("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  if (type.startsWith("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new LocalIdpError("invalid_request", 400, "Body is not valid JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new LocalIdpError("invalid_request", 400, "Body must be a JSON object");
    }
    return parsed as Record<string, unknown>;
  }
  throw new LocalIdpError("unsupported_media_type", 415, "Send application/json or a form");
}

/** A non-empty string field of a body or query, else null. */
export function field(source: Record<string, unknown> | URLSearchParams, name: string): string | null {
  const value = source instanceof URLSearchParams ? source.get(name) : source[name];
  return typeof value === "string" && value !== "" ? value : null;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether the provider may send a browser to `uri` (redirect_uri, return_to): http(s), no
 * credentials, and either a loopback host or one of `origins`. Mirrors WorkOS's registered
 * redirect URIs, so the provider is never an open redirector.
 */
export function isAllowedRedirect(uri: string, origins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.username !== "" || url.password !== "") return false;
  return LOOPBACK.has(url.hostname) || url.hostname.endsWith(".localhost") || origins.includes(url.origin);
}
