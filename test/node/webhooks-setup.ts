/**
 * Node-side globalSetup of the "webhooks" project (and bench-webhooks): starts the local identity
 * provider with signed webhooks on, pointed at a small receiving server here (workerd tests cannot
 * accept inbound HTTP), and provides both addresses. Tests read what the provider sent from its
 * outbox (`/__local/webhooks`) or from the receiver (`GET /received`) and replay it into the worker.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { LOCAL_IDP_DEFAULTS, startLocalIdp } from "../../scripts/local-idp/index.ts";

/** Must equal IDENTITY_WEBHOOK_SECRET in test/webhooks/wrangler.toml and bench/webhooks/wrangler.toml. */
export const WEBHOOK_SECRET = "whsec_test_gatehouse_0123456789abcdef";

export interface ProvidedWebhookIdp {
  url: string;
  hostname: string;
  port: number;
  apiKey: string;
  clientId: string;
  /** The receiver the provider delivers to: `GET /received` lists, `DELETE /received` clears. */
  receiverUrl: string;
}

declare module "vitest" {
  interface ProvidedContext {
    webhookIdp: ProvidedWebhookIdp;
  }
}

interface Received {
  signature: string | null;
  contentType: string | null;
  body: string;
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    void (async () => {
      if (req.method === "POST" && req.url === "/hook") {
        received.push({
          signature: (req.headers["workos-signature"] as string | undefined) ?? null,
          contentType: req.headers["content-type"] ?? null,
          body: await text(req),
        });
        res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      } else if (req.url === "/received" && req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ received }));
      } else if (req.url === "/received" && req.method === "DELETE") {
        received.length = 0;
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      } else {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const idp = await startLocalIdp({
    apiKey: LOCAL_IDP_DEFAULTS.apiKey,
    clientId: LOCAL_IDP_DEFAULTS.clientId,
    redirectOrigins: ["https://auth.example.com"],
    webhook: { url: `${receiverUrl}/hook`, secret: WEBHOOK_SECRET },
  });
  project.provide("webhookIdp", {
    url: idp.url,
    hostname: new URL(idp.url).hostname,
    port: idp.port,
    apiKey: LOCAL_IDP_DEFAULTS.apiKey,
    clientId: LOCAL_IDP_DEFAULTS.clientId,
    receiverUrl,
  });
  return async () => {
    await idp.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  };
}
