/**
 * @module
 * `GET /admin/ssf/streams`: the shared-signals streams an operator can see (issue 32): each
 * receiver's streams with their configuration, status, SETs still held and the latest push attempts
 * (the delivery log). Read-only: a receiver manages its own streams with its own token, and an
 * operator removes a receiver from `ssf.receivers` to stop it. Never shows a receiver's endpoint
 * secret or a SET. Without the streams object bound: an empty list.
 */
import type { Application } from "../../../../client-sdk/core/application";
import { streamsObject } from "../../../../durable-objects/ssf-streams";
import { json } from "./respond";

export function registerStreamRoutes<E extends object>(app: Application<E>): void {
  app.hono.get("/admin/ssf/streams", async (c) => {
    const recent = Number(c.req.query("recent") ?? 20);
    if (!Number.isInteger(recent) || recent < 1 || recent > 100) {
      return json(400, { error: "invalid_limit", message: "recent is a whole number from 1 to 100" });
    }
    // The env view names the streams object's binding SSF_STREAMS whatever it is called.
    const object = streamsObject((app.env as { SSF_STREAMS?: unknown }).SSF_STREAMS);
    return json(200, { streams: object ? await object.overview(recent) : [] });
  });
}
