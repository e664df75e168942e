/**
 * The local identity provider: a Node HTTP server speaking the part of the WorkOS API that
 * `@workos-inc/node` v11 calls, so the real SDK runs offline (`apiHostname`, `port`, `https: false`).
 * `startLocalIdp` is the programmatic entry (Vitest globalSetup, `npm start`). It logs nothing per
 * request and never answers a stack trace; it is for local development and tests only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { API_ROUTES } from "./api-routes.ts";
import { BROWSER_ROUTES } from "./browser-routes.ts";
import type { IdpConfig, IdpContext, Route } from "./context.ts";
import { DASHBOARD_ROUTES } from "./dashboard-routes.ts";
import { loadDirectory, saveDirectory } from "./directory-file.ts";
import { LocalIdpError } from "./errors.ts";
import { FaultRegistry } from "./faults.ts";
import { html, json, type Reply, readBody, readText } from "./http.ts";
import { randomSecret } from "./ids.ts";
import { LOCAL_ROUTES } from "./local-routes.ts";
import { renderMessagePage } from "./pages.ts";
import { SECURITY_EVENT_ROUTES } from "./security-event-routes.ts";
import { SecurityEventInbox, type SecurityEventsConfig } from "./security-events.ts";
import { createSigner } from "./signer.ts";
import { IdpStore } from "./store.ts";
import { type WebhookConfig, WebhookSender } from "./webhooks.ts";

/** Defaults of the CLI (`main.ts`) and the values `npm start` points the SDK at. */
export const LOCAL_IDP_DEFAULTS = { port: 8788, apiKey: "sk_test_local", clientId: "client_local" } as const;

export interface LocalIdpOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** The API key the server accepts as `client_secret` and `Authorization: Bearer`. */
  apiKey: string;
  /** The client id the server knows (authorize, authenticate, JWKS). */
  clientId: string;
  /** Base URL clients see (also the access tokens' `iss`); default `http://<host>:<port>`. */
  publicUrl?: string;
  /** Origins besides loopback hosts that `redirect_uri` / `return_to` may use, e.g. `https://example.com`. */
  redirectOrigins?: readonly string[];
  /** Clock in milliseconds, for code- and token-expiry tests. Default `Date.now`. */
  now?: () => number;
  /** Deliver directory changes as signed WorkOS webhooks to `url` (see webhooks.ts). Default off. */
  webhook?: WebhookConfig;
  /**
   * Receive the auth worker's signed security events at `POST /__local/security-events` (point its
   * `SECURITY_EVENTS_WEBHOOK_URL` there; the same secret on both sides). Default off (503).
   */
  securityEvents?: SecurityEventsConfig;
  /**
   * Keep the directory (people, organizations, memberships and roles) in this JSON file: read at
   * start, rewritten atomically on every change. A file that cannot be used is reported in one
   * line and the demo directory is used (and saved over it on the next change). Default: none,
   * the directory lives in memory (tests). Codes, sessions and refresh tokens are never saved.
   */
  directoryFile?: string;
  /** Where the one-line warnings go (a directory file that cannot be read or written). Default `console.warn`. */
  warn?: (line: string) => void;
  /** Every access token carries `auth_time` (see `IdpConfig.authTimeClaim`). Default on; off is like WorkOS's emulator. */
  authTimeClaim?: boolean;
}

export interface LocalIdp {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:54321`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const ROUTES: Route[] = [
  ...API_ROUTES,
  ...BROWSER_ROUTES,
  ...LOCAL_ROUTES,
  ...SECURITY_EVENT_ROUTES,
  ...DASHBOARD_ROUTES,
];

export async function startLocalIdp(options: LocalIdpOptions): Promise<LocalIdp> {
  if (!options.apiKey) throw new TypeError("startLocalIdp: apiKey is required");
  if (!options.clientId) throw new TypeError("startLocalIdp: clientId is required");
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host)) {
    console.warn(
      `local-idp: WARNING: listening on ${host}, not loopback. Anyone who can reach it can sign in as any demo user ` +
        "and read the signed webhook deliveries and security events (GET /__local/webhooks, /__local/security-events). " +
        "It is a development tool: never expose it.",
    );
  }
  const now = options.now ?? Date.now;
  const config: IdpConfig = {
    apiKey: options.apiKey,
    clientId: options.clientId,
    issuer: "",
    redirectOrigins: (options.redirectOrigins ?? []).map((o) => new URL(o).origin),
    authTimeClaim: options.authTimeClaim ?? true,
    allowedHosts: isLoopbackHost(host)
      ? new Set(options.publicUrl ? [new URL(options.publicUrl).hostname.toLowerCase()] : [])
      : null,
  };
  const store = openStore(options, now);
  const securityEvents = new SecurityEventInbox(options.securityEvents ?? null, now);
  const ctx: IdpContext = {
    config,
    store,
    signer: await createSigner(now),
    faults: new FaultRegistry(),
    webhooks: new WebhookSender(store, options.webhook ?? null, now),
    securityEvents,
    formToken: randomSecret(24),
    now,
  };
  const closing = new AbortController();
  const server = createServer((req, res) => {
    handle(ctx, req, res, closing.signal).catch((err: unknown) => {
      console.error("local-idp: failed to answer a request", err);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = (options.publicUrl ?? `http://${urlHost}:${port}`).replace(/\/+$/, "");
  config.issuer = url;

  return {
    url,
    port,
    close: async () => {
      await ctx.webhooks.close();
      await new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** The store, from `options.directoryFile` when given (saved on every directory change), else the demo directory. */
function openStore(options: LocalIdpOptions, now: () => number): IdpStore {
  const file = options.directoryFile;
  if (file === undefined) return new IdpStore(now);
  const warn = options.warn ?? ((line: string) => console.warn(line));
  const loaded = loadDirectory(file);
  if (!loaded.ok) warn(`local-idp: ignoring the saved directory ${file}: ${loaded.reason}; using the demo directory`);
  const store = new IdpStore(now, loaded.ok ? loaded.value : null);
  store.onDirectoryChange(() => {
    try {
      saveDirectory(file, store.directory());
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      warn(`local-idp: could not save the directory to ${file} (${typeof code === "string" ? code : "unknown error"})`);
    }
  });
  return store;
}

async function handle(ctx: IdpContext, req: IncomingMessage, res: ServerResponse, closing: AbortSignal) {
  const gone = new AbortController();
  res.once("close", () => gone.abort());
  const reply = await dispatch(ctx, req, AbortSignal.any([gone.signal, closing]));
  if (reply === null || res.destroyed) return;
  res.writeHead(reply.status, reply.headers).end(reply.body);
}

/** Routes one request; null when the client went away during an injected delay. */
async function dispatch(ctx: IdpContext, req: IncomingMessage, signal: AbortSignal): Promise<Reply | null> {
  if (!hostAllowed(ctx.config.allowedHosts, req.headers.host)) {
    return json(421, { code: "host_not_allowed", message: "This server answers loopback host names only" });
  }
  const url = new URL(req.url ?? "/", "http://local-idp");
  const method = req.method ?? "GET";
  let route: Route | undefined;
  let match: RegExpExecArray | null = null;
  for (const candidate of ROUTES) {
    if (candidate.method !== method) continue;
    match = candidate.pattern.exec(url.pathname);
    if (match) {
      route = candidate;
      break;
    }
  }
  if (!route || !match) return json(404, { code: "not_found", message: `No route for ${method} ${url.pathname}` });
  try {
    const fault = route.endpoint === null ? null : ctx.faults.take(route.endpoint);
    if (fault && fault.delayMs > 0) {
      try {
        await delay(fault.delayMs, undefined, { signal });
      } catch {
        return null;
      }
    }
    if (fault && fault.status !== null) {
      throw new LocalIdpError("injected_fault", fault.status, `Injected fault on '${fault.endpoint}'.`);
    }
    const params = match.slice(1).map((p) => decodeParam(p));
    return await route.handler(ctx, {
      method,
      url,
      headers: req.headers,
      params,
      body: () => readBody(req),
      text: (maxBytes) => readText(req, maxBytes),
    });
  } catch (err) {
    return errorReply(err, route.page);
  }
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new LocalIdpError("invalid_request", 400, "Malformed path parameter");
  }
}

function errorReply(err: unknown, page: boolean): Reply {
  if (err instanceof LocalIdpError) {
    if (!page) return json(err.status, err.toWire());
    return html(err.status, renderMessagePage("Something went wrong", err.message));
  }
  console.error("local-idp: unexpected error", err);
  if (page) return html(500, renderMessagePage("Something went wrong", "The local identity provider failed."));
  return json(500, { code: "internal_error", message: "Internal Server Error" });
}

/** True when `hostHeader` (`name[:port]`) is a loopback name, one of `allowed`, or anything when `allowed` is null. */
function hostAllowed(allowed: ReadonlySet<string> | null, hostHeader: string | undefined): boolean {
  if (allowed === null) return true;
  if (!hostHeader) return false;
  const name = hostHeader.startsWith("[")
    ? hostHeader.slice(0, hostHeader.indexOf("]") + 1)
    : hostHeader.split(":")[0]!;
  const lower = name.toLowerCase();
  return isLoopbackHost(lower) || lower.endsWith(".localhost") || allowed.has(lower);
}

/** 127.0.0.0/8, ::1 and localhost: the only interfaces the provider binds without a warning. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}
