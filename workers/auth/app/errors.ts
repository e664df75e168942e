/**
 * @module
 * What the auth worker answers for an error thrown past its routes (a session store that failed
 * under `AuthMiddleware`, a bug): a browser's navigation (`Accept: text/html`) gets a page with
 * "Try again" and "Home"; every other client (the admin API, scripts, `curl`) exactly the JSON
 * `Application` gives (`errorResponse`: the code kept, a 5xx message never).
 * It never shows a message, stack or cause of a server-side error.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { acceptsHtml } from "../../../client-sdk/auth-context";
import { errorResponse, jsonError, toErrorBody } from "../../../client-sdk/core/errors";
import { errorPage } from "../pages";

export function authOnError(err: Error, c: Context): Response {
  if (err instanceof HTTPException) return jsonError(err.status, "http_error", err.message || "Request failed");
  const request = c.req.raw;
  if (!acceptsHtml(request)) return errorResponse(err);
  const { status, body } = toErrorBody(err);
  if (status >= 500) console.error("gatehouse: unhandled error", err);
  const message = status >= 500 ? "Something went wrong on our side. Please try again in a moment." : body.message;
  return errorPage(request, status, body.error, message);
}
