/**
 * The shapes shared by the local identity provider's route modules: its configuration, the
 * per-server context (store, signer, faults, webhooks, security events) and the route table entry.
 * Types and one guard only; never holds state of its own.
 */
import type { IncomingHttpHeaders } from "node:http";
import { LocalIdpError } from "./errors.ts";
import type { FaultEndpoint, FaultRegistry } from "./faults.ts";
import type { Reply } from "./http.ts";
import type { SecurityEventInbox } from "./security-events.ts";
import { type Signer, secretEquals } from "./signer.ts";
import type { IdpStore } from "./store.ts";
import type { WebhookSender } from "./webhooks.ts";

export interface IdpConfig {
  /** The API key (`client_secret`, `Authorization: Bearer`) the server accepts. */
  apiKey: string;
  /** The one client id the server knows. */
  clientId: string;
  /** The `iss` claim of access tokens: the server's public URL. */
  issuer: string;
  /** Origins besides loopback hosts that `redirect_uri` and `return_to` may point to. */
  redirectOrigins: readonly string[];
  /**
   * Host names a request's `Host` header may carry; null accepts any (the server was bound beyond
   * loopback on purpose). Bound to loopback, only loopback names and the public URL's host answer,
   * so a web page that rebinds its own DNS name to 127.0.0.1 cannot drive the provider.
   */
  allowedHosts: ReadonlySet<string> | null;
  /**
   * Whether every access token carries `auth_time`. WorkOS's reauthentication page says every
   * AuthKit access token does (workos.com/docs/authkit/reauthentication); its session-token
   * reference lists no such claim and its emulator sends none. On by default, as that page says;
   * off gives the emulator's tokens (the no-`auth_time` path is also proven against the emulator
   * itself, test/workos). A code minted with an explicit `auth_time` always carries it.
   */
  authTimeClaim: boolean;
}

export interface IdpContext {
  config: IdpConfig;
  store: IdpStore;
  signer: Signer;
  faults: FaultRegistry;
  webhooks: WebhookSender;
  /** The auth worker's security events received at `/__local/security-events`. */
  securityEvents: SecurityEventInbox;
  /** Random per server start; the dashboard's forms carry it, so another site cannot post them. */
  formToken: string;
  /** The server's clock (ms), the one the store and signer use. */
  now: () => number;
}

export interface IdpRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  /** Decoded capture groups of the route pattern. */
  params: string[];
  body(): Promise<Record<string, unknown>>;
  /** The raw body as text (for signature checks); 413 past `maxBytes`. Read it or `body()`, not both. */
  text(maxBytes: number): Promise<string>;
}

export type Handler = (ctx: IdpContext, req: IdpRequest) => Reply | Promise<Reply>;

export interface Route {
  method: "GET" | "POST" | "DELETE";
  pattern: RegExp;
  /** The name `/__local/faults` targets, or null for routes that cannot be faulted. */
  endpoint: FaultEndpoint | null;
  /** Browser-facing routes answer errors as HTML pages instead of JSON. */
  page: boolean;
  handler: Handler;
}

/** Resource endpoints require `Authorization: Bearer <api key>`, like the WorkOS API. */
export function requireApiKey(ctx: IdpContext, req: IdpRequest): void {
  const header = req.headers.authorization ?? "";
  const match = /^Bearer (.+)$/.exec(header);
  if (!match?.[1] || !secretEquals(match[1], ctx.config.apiKey)) {
    throw new LocalIdpError("unauthorized", 401, "Unauthorized: missing or wrong API key");
  }
}
