/**
 * Fixture worker of the bindings tests: a Durable Object per behaviour
 * (`Counter` for StatefulObjectClient, `ContainerStandIn` for ContainerClient),
 * and a queue consumer that records every message it receives in KV so tests
 * can assert delivery.
 */
import { DurableObject } from "cloudflare:workers";

export class Counter extends DurableObject {
  async increment(by = 1): Promise<number> {
    const next = ((await this.ctx.storage.get<number>("count")) ?? 0) + by;
    await this.ctx.storage.put("count", next);
    return next;
  }

  override async fetch(request: Request): Promise<Response> {
    return Response.json({ count: await this.increment(), path: new URL(request.url).pathname });
  }
}

/**
 * Stands in for a container instance (containers cannot boot without Docker):
 * answers `/health` like a container image would, `/state/{healthy|sick|broken}`
 * changes how it answers, and any other path echoes the request.
 */
export class ContainerStandIn extends DurableObject {
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const state = (await this.ctx.storage.get<string>("state")) ?? "healthy";
    if (url.pathname.startsWith("/state/")) {
      await this.ctx.storage.put("state", url.pathname.slice("/state/".length));
      return new Response(null, { status: 204 });
    }
    if (url.pathname === "/health") {
      if (state === "broken") throw new Error("container process exited");
      return state === "sick" ? new Response("starting", { status: 503 }) : new Response("ok");
    }
    const requests = ((await this.ctx.storage.get<number>("requests")) ?? 0) + 1;
    await this.ctx.storage.put("requests", requests);
    return Response.json({
      id: this.ctx.id.toString(),
      requests,
      method: request.method,
      url: request.url,
      contentType: request.headers.get("content-type"),
      body: request.method === "GET" ? null : await request.text(),
    });
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("bindings fixture");
  },
  /** Records `{ marker, n }` bodies as `queue:{marker}:{n}` in KV. */
  async queue(batch: MessageBatch<unknown>, env: Cloudflare.Env): Promise<void> {
    for (const message of batch.messages) {
      const body = message.body as { marker?: string; n?: number };
      await env.KV.put(`queue:${body.marker}:${body.n}`, JSON.stringify({ body: message.body, id: message.id }));
      message.ack();
    }
  },
} satisfies ExportedHandler<Cloudflare.Env>;
