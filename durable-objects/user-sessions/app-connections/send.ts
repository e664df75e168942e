/**
 * @module
 * Sends an event's notices to one app over its service binding (`sessionsEnded`), each within
 * `APP_DEADLINE_MS`: true only when every notice was answered. A throw, a refusal or a missed
 * deadline is a failure the outbox retries; the log names the app and the error's name, never a
 * notice's contents or the receiver's message (it may quote what it was sent).
 */

import { withDeadline } from "../../../client-sdk/core/deadline";
import { releaseRpcResult } from "../../../client-sdk/core/rpc";
import type { SessionsEndedNotice } from "../../../client-sdk/protocol/app-connections";
import type { AppDelivery } from "./destinations";

/** How long an app has to answer a notice. */
export const APP_DEADLINE_MS = 10_000;
/**
 * How far the immediate attempt pushes its rows' `next_at` before sending: past the deadline, so the
 * alarm never sends a row whose attempt is still in flight; after a crash the alarm retries it then.
 */
export const APP_LEASE_MS = 15_000;

export class AppDeliveryError extends Error {
  override name = "AppDeliveryError";
  readonly code: "not_bound" | "timed_out";
  constructor(code: "not_bound" | "timed_out", app: string) {
    super(code === "not_bound" ? `app ${app}: nothing callable is bound` : `app ${app}: no answer in time`);
    this.code = code;
  }
}

/** Sends every notice (one after another, in order); true when each was answered. */
export async function sendNotices(app: AppDelivery, notices: readonly SessionsEndedNotice[]): Promise<boolean> {
  try {
    const receiver = app.receiver;
    if (!receiver) throw new AppDeliveryError("not_bound", app.name);
    for (const notice of notices) {
      releaseRpcResult(
        await withDeadline(
          receiver.sessionsEnded(notice),
          APP_DEADLINE_MS,
          () => new AppDeliveryError("timed_out", app.name),
        ),
      );
    }
    return true;
  } catch (err) {
    const what = err instanceof AppDeliveryError ? err.code : err instanceof Error ? err.name : "unknown error";
    console.error(`gatehouse: app ${app.name} (binding ${app.binding}) did not take a revocation notice: ${what}`);
    return false;
  }
}
