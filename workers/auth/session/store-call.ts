/**
 * @module
 * The session layer's error mappings: any failure of KV or of a session
 * object becomes a 503 `session_store_unavailable` (fail closed), an
 * `AuthError` already raised passes through unchanged; a call that needs a
 * Durable Object namespace the worker was not given is a 500 `config_missing`.
 */
import { AuthError } from "../errors";

export async function storeCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (cause) {
    if (cause instanceof AuthError) throw cause;
    throw new AuthError("session_store_unavailable", { status: 503, message: "Sessions are unavailable", cause });
  }
}

/** The door to a bound namespace, or a 500 `config_missing` saying what to bind (`needs`). */
export function bound<T>(door: T | undefined, needs: string): T {
  if (door === undefined) throw new AuthError("config_missing", { status: 500, message: needs });
  return door;
}
