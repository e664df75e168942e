/**
 * @module
 * The session layer's one error mapping: any failure of KV or of a session
 * object becomes a 503 `session_store_unavailable` (fail closed); an
 * `AuthError` already raised passes through unchanged.
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
