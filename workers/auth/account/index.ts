/**
 * @module
 * Self-service sessions (`/account/sessions`): the routes, the page and the
 * list view shared with the live browser bundle (`client/live.ts`).
 */

export { LIVE_SCRIPT_PATH } from "./page";
export { ACCOUNT_SESSIONS_PATH, registerAccountRoutes } from "./routes";
export { type SessionListBody, type SessionView, toSessionView } from "./view";
