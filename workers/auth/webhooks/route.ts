/**
 * @module
 * `POST /webhooks/identity`: the identity provider's events (WorkOS webhooks).
 * Rate-limited per client address (the auth worker's route limits, family
 * "webhooks"), then the body is read (bounded), its `WorkOS-Signature`
 * verified with the SDK, and the event reduced. The answer (200) goes out
 * before the work, which runs in `waitUntil`, except for a directory user's
 * event: matched to a person by email (the email directory; nobody: 200,
 * ignored), then applied before answering, because the person's object decides
 * whether the directory's organization may act at all and the answer says so
 * (`handled: false, reason: "not_member"`, 200: WorkOS must not retry a refusal).
 * A bad signature, a stale timestamp or a malformed body answers 400 JSON and
 * changes nothing; an email directory or a person's object that cannot be
 * reached, 503 (WorkOS delivers again; the object dedupes by event id).
 */
import type { WorkOS } from "@workos-inc/node";
import type { Application } from "../../../client-sdk/core/application";
import { jsonError } from "../../../client-sdk/core/errors";
import { waitUntilOf } from "../../../client-sdk/core/wait-until";
import type { ProviderEventResult } from "../../../durable-objects/user-sessions";
import { createWorkOS } from "../identity/workos";
import { routeLimiterFor } from "../limits";
import type { AuthEnv } from "../provider";
import { OrganizationObjects } from "../session/organizations";
import { SessionManager } from "../session/session-manager";
import { applyEvent } from "./dispatch";
import { WebhookError, type WebhookErrorCode } from "./errors";
import { type DirectoryUserEvent, parseProviderEvent } from "./events";
import { OrganizationSlugs } from "./organizations";
import { DEFAULT_TOLERANCE_MS, SIGNATURE_HEADER, verifyWebhook } from "./verify";

export const IDENTITY_WEBHOOK_PATH = "/webhooks/identity";

export interface IdentityWebhookOptions {
  /** Default `/webhooks/identity`. */
  path?: string;
  /** How far the signature's timestamp may be from now. Default 300 s. */
  toleranceSeconds?: number;
  /** Largest body accepted. Default 256 KiB. */
  maxBodyBytes?: number;
}

const MESSAGES: Record<WebhookErrorCode, string> = {
  invalid_signature: "The WorkOS-Signature header is missing or does not match the body",
  stale_timestamp: "The signature's timestamp is outside the accepted window",
  malformed_body: "The body is not a well-formed provider event",
  payload_too_large: "The body is too large",
  not_configured: "Provider webhooks are not configured on this deployment",
  session_store_unavailable: "The event could not be matched to a person or applied now; deliver it again later",
};

function answer(status: number, body: Record<string, unknown>): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}

/** The JSON error answer of one `WebhookError` (fixed messages: nothing about what exactly failed). */
function refuse(status: number, code: WebhookErrorCode): Response {
  const error = new WebhookError(code, { status, message: MESSAGES[code] });
  return jsonError(error.status, error.code, error.message);
}

/** Registers the webhook route. Without IDENTITY_WEBHOOK_SECRET (or USER_SESSIONS) it answers 503. */
export function registerIdentityWebhook<E extends AuthEnv>(
  app: Application<E>,
  options: IdentityWebhookOptions = {},
): void {
  const env = app.env;
  const toleranceMs = (options.toleranceSeconds ?? DEFAULT_TOLERANCE_MS / 1000) * 1000;
  const maxBytes = options.maxBodyBytes ?? 256 * 1024;
  let sdk: { workos: WorkOS; slugs: OrganizationSlugs } | null = null;
  const sdkFor = () => {
    sdk ??= (() => {
      const workos = workosClient(env);
      return { workos, slugs: new OrganizationSlugs(workos) };
    })();
    return sdk;
  };

  const receive = async (request: Request, waitUntil: (p: Promise<unknown>) => void): Promise<Response> => {
    const secret = env.IDENTITY_WEBHOOK_SECRET;
    const namespace = env.USER_SESSIONS;
    if (!secret || !namespace) {
      console.error("gatehouse: a provider webhook arrived, but IDENTITY_WEBHOOK_SECRET or USER_SESSIONS is not set");
      return refuse(503, "not_configured");
    }
    const sigHeader = request.headers.get(SIGNATURE_HEADER);
    if (!sigHeader) return refuse(400, "invalid_signature");
    const body = await readBounded(request, maxBytes);
    if (!body.ok) return body.reason === "too_large" ? refuse(413, "payload_too_large") : refuse(400, "malformed_body");
    const payload = body.text;
    const { workos, slugs } = sdkFor();
    const verified = await verifyWebhook(workos.webhooks, { payload, sigHeader, secret, toleranceMs, now: Date.now() });
    if (!verified.ok) return refuse(400, verified.reason);
    const parsed = parseProviderEvent(verified.event);
    if (!parsed.ok) return refuse(400, "malformed_body");
    if (parsed.value.kind === "ignored") {
      const { type, reason } = parsed.value;
      if (reason) {
        // A deactivation nobody can act on: an operator should see it (no email or user in the line).
        console.warn(`gatehouse: provider event ${type} names a directory with no organization; nothing ended`);
        return answer(200, { received: true, handled: false, reason });
      }
      console.debug(`gatehouse: ignored provider event of type ${type}`);
      return answer(200, { received: true, handled: false });
    }
    if (parsed.value.kind === "by_email") {
      const { email, event } = parsed.value;
      const person = await personByEmail(app, email);
      if (!person.ok) return refuse(503, person.reason);
      if (person.userId === null) {
        console.debug(`gatehouse: provider event ${event.type} ${event.id} names nobody who signed in here; ignored`);
        return answer(200, { received: true, handled: false });
      }
      const result = await applyEvent(
        namespace,
        { kind: "handled", userId: person.userId, event, needsSlug: false },
        null,
      );
      return result ? deactivationAnswer(event, result) : refuse(503, "session_store_unavailable");
    }
    const organizations = env.ORGANIZATIONS ? new OrganizationObjects(env.ORGANIZATIONS) : null;
    waitUntil(applyEvent(namespace, parsed.value, slugs, organizations));
    return answer(200, { received: true, handled: true });
  };

  const path = options.path ?? IDENTITY_WEBHOOK_PATH;
  // Before anything reads the body: AUTH_RATE_LIMITS.webhooks per client address (RATE_LIMITER).
  const limiter = routeLimiterFor(app, "webhooks");
  if (limiter) app.hono.use(path, limiter);
  app.hono.post(path, (c) => {
    // Without an ExecutionContext (called outside a worker's fetch) the promise runs on its own.
    return receive(c.req.raw, waitUntilOf(c) ?? ((p) => void p));
  });
}

/**
 * The answer to a directory deactivation the person's object ruled on: `handled: true` when it was
 * applied; otherwise `handled: false` and why, still 200 so WorkOS does not retry: "not_member" (the
 * person is not a member of the directory's organization here: refused, and logged as a warning
 * with the event and organization ids, never the email or the user), "stale" (a newer membership
 * event says they are a member again) or "duplicate" (this event id was applied before).
 */
function deactivationAnswer(event: DirectoryUserEvent, result: ProviderEventResult): Response {
  if (result.outcome === "applied") return answer(200, { received: true, handled: true });
  if (result.outcome === "not_member") {
    console.warn(
      `gatehouse: provider event ${event.type} ${event.id}: the person its email matched is not a member of ${event.organizationId} here; nothing ended`,
    );
  }
  return answer(200, { received: true, handled: false, reason: result.outcome });
}

type PersonLookup =
  | { ok: true; userId: string | null }
  | { ok: false; reason: "not_configured" | "session_store_unavailable" };

/**
 * Who signed in here with `email`: the email directory, the same lookup the shared-signals receiver
 * matches an `email` subject with (`SessionManager.directory`). A failed read is a 503, so the
 * provider delivers again rather than the deactivation being lost; never throws.
 */
async function personByEmail<E extends AuthEnv>(app: Application<E>, email: string): Promise<PersonLookup> {
  let sessions: SessionManager;
  try {
    sessions = app.container.resolve(SessionManager);
  } catch (err) {
    console.error(
      "gatehouse: a directory-sync event arrived, but there is no SessionManager (SESSIONS?)",
      err instanceof Error ? err.name : "",
    );
    return { ok: false, reason: "not_configured" };
  }
  try {
    return { ok: true, userId: await sessions.directory.find(email) };
  } catch (err) {
    console.error("gatehouse: could not read the email directory", err instanceof Error ? err.name : "");
    return { ok: false, reason: "session_store_unavailable" };
  }
}

/** The body as text, or null once it exceeds `max` bytes (checked while streaming). */
type BodyRead = { ok: true; text: string } | { ok: false; reason: "too_large" | "unreadable" };

async function readBounded(request: Request, max: number): Promise<BodyRead> {
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > max) return { ok: false, reason: "too_large" };
  if (!request.body) return { ok: true, text: "" };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      return { ok: false, reason: "unreadable" }; // the sender went away mid-body: nothing to verify
    }
    const { done, value } = step;
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return { ok: false, reason: "too_large" };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, text: new TextDecoder().decode(bytes) };
}

/** The SDK, configured like `DefaultIdentityClient` (IDENTITY_API_* may point at the local provider). */
function workosClient(env: AuthEnv): WorkOS {
  // Verifying signatures needs no credentials; looking up organizations needs IDENTITY_API_KEY.
  return createWorkOS(env, {
    apiKey: env.IDENTITY_API_KEY ?? "",
    clientId: env.IDENTITY_CLIENT_ID || "gatehouse-webhooks",
  });
}
