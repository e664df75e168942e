/**
 * The provider half of webhooks: every `StoreEvent` becomes a WorkOS event (`{ id, event, data,
 * created_at }`), signed like WorkOS (`WorkOS-Signature`, see webhook-signature.ts) and POSTed to
 * the configured URL, one at a time in order, retried twice on failure with a fresh signature.
 * The last deliveries stay in an outbox for `/__local/webhooks` and the page. Without a URL and a
 * secret it does nothing. It never logs the secret or a body.
 */
import { ulid } from "./ids.ts";
import type { IdpStore, StoreEvent } from "./store.ts";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "./webhook-signature.ts";
import { eventJson, membershipJson, providerSessionJson, userJson } from "./wire.ts";

export interface WebhookConfig {
  /** Where events are POSTed, e.g. `http://127.0.0.1:8787/webhooks/identity`. */
  url: string;
  /** The signing secret; the receiver verifies with the same value (`IDENTITY_WEBHOOK_SECRET`). */
  secret: string;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One event and what became of its delivery. `body` and `signature` are exactly what was sent last. */
export interface Delivery {
  id: string;
  event: string;
  createdAt: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  body: string;
  signature: string;
}

const OUTBOX_SIZE = 100;
const RETRY_DELAYS_MS = [500, 2_000];
const ATTEMPT_TIMEOUT_MS = 5_000;

export class WebhookSender {
  readonly #config: WebhookConfig | null;
  readonly #store: IdpStore;
  readonly #now: () => number;
  readonly #closing = new AbortController();
  #outbox: Delivery[] = [];
  #queue: Promise<void> = Promise.resolve();
  readonly #unsubscribe: () => void;

  constructor(store: IdpStore, config: WebhookConfig | null, now: () => number = Date.now) {
    if (config) {
      new URL(config.url); // throws on a malformed URL, at start rather than at the first event
      if (!config.secret) throw new TypeError("webhook: the secret must not be empty");
    }
    this.#config = config;
    this.#store = store;
    this.#now = now;
    this.#unsubscribe = store.subscribe((event) => this.#enqueue(event));
  }

  /** The URL events go to, or null when webhooks are off. */
  get endpoint(): string | null {
    return this.#config?.url ?? null;
  }

  /** The last deliveries, oldest first. */
  deliveries(): Delivery[] {
    return this.#outbox.map((d) => ({ ...d }));
  }

  clear(): void {
    this.#outbox = [];
  }

  /** Stops listening and abandons pending retries; resolves when the current attempt ended. */
  async close(): Promise<void> {
    this.#unsubscribe();
    this.#closing.abort();
    await this.#queue;
  }

  #enqueue(event: StoreEvent): void {
    const config = this.#config;
    if (!config || this.#closing.signal.aborted) return;
    const now = this.#now();
    const createdAt = new Date(now).toISOString();
    const delivery: Delivery = {
      id: `event_${ulid(now)}`,
      event: event.type,
      createdAt,
      status: "pending",
      attempts: 0,
      responseStatus: null,
      error: null,
      body: "",
      signature: "",
    };
    delivery.body = JSON.stringify(eventJson(delivery.id, event.type, this.#data(event), createdAt));
    this.#outbox.push(delivery);
    if (this.#outbox.length > OUTBOX_SIZE) this.#outbox.splice(0, this.#outbox.length - OUTBOX_SIZE);
    this.#queue = this.#queue.then(() => this.#deliver(config, delivery));
  }

  #data(event: StoreEvent): Record<string, unknown> {
    switch (event.type) {
      case "session.created":
      case "session.revoked":
        return providerSessionJson(event.session);
      case "user.deleted":
        return userJson(event.user);
      default:
        return membershipJson(event.membership, this.#store.organization(event.membership.organizationId));
    }
  }

  async #deliver(config: WebhookConfig, delivery: Delivery): Promise<void> {
    const signal = this.#closing.signal;
    for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length && !signal.aborted; attempt++) {
      if (attempt > 0 && !(await sleep(RETRY_DELAYS_MS[attempt - 1]!, signal))) break;
      delivery.attempts++;
      delivery.signature = await signWebhook(delivery.body, config.secret, this.#now());
      try {
        const res = await fetch(config.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": "local-idp-webhooks",
            [WEBHOOK_SIGNATURE_HEADER]: delivery.signature,
          },
          body: delivery.body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
        });
        await res.body?.cancel();
        delivery.responseStatus = res.status;
        if (res.ok) {
          delivery.status = "delivered";
          delivery.error = null;
          return;
        }
        delivery.error = `HTTP ${res.status}`;
      } catch (err) {
        delivery.error = err instanceof Error ? err.message : String(err);
      }
    }
    delivery.status = "failed";
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Webhook settings from LOCAL_IDP_WEBHOOK_URL and LOCAL_IDP_WEBHOOK_SECRET: both or neither. */
export function webhookConfigFromEnv(env: Record<string, string | undefined>): WebhookConfig | null {
  const url = env.LOCAL_IDP_WEBHOOK_URL?.trim() || "";
  const secret = env.LOCAL_IDP_WEBHOOK_SECRET?.trim() || "";
  if (!url && !secret) return null;
  if (!url || !secret) throw new TypeError("LOCAL_IDP_WEBHOOK_URL and LOCAL_IDP_WEBHOOK_SECRET go together");
  return { url, secret };
}
