/** The bench worker: Gatehouse's per-user session objects (strict revocation). Better Auth runs in the bench itself. */
export { UserSessions } from "gatehouse-workers/durable-objects";

export default {
  fetch: () => new Response("bench worker"),
};
