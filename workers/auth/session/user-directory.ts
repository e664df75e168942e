/**
 * @module
 * The console's way from an email address to a user id: KV `directory:email:<SHA-256 hex of the
 * lower-cased address>` → `{ userId, at }`, written at sign-in (best effort, and only when missing,
 * different or older than `REFRESH_MS`, so a sign-in costs one KV read and rarely a write). Only
 * people who signed in here can be found, which are the only ones with sessions to manage. The
 * address itself is never a key, so listing the namespace shows no addresses.
 */
import { sha256Hex } from "../crypto";

const PREFIX = "directory:email:";
/** Kept this long after the last sign-in that wrote it (the timeline's default retention). */
export const DIRECTORY_TTL_SECONDS = 90 * 86_400;
/** A sign-in rewrites an entry older than this, so an active person never expires. */
const REFRESH_MS = 30 * 86_400_000;

interface Entry {
  userId: string;
  at: number;
}

function isEntry(value: unknown): value is Entry {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Entry).userId === "string" &&
    typeof (value as Entry).at === "number"
  );
}

export class UserDirectory {
  readonly #kv: KVNamespace;
  readonly #clock: () => number;

  constructor(kv: KVNamespace, clock: () => number = Date.now) {
    this.#kv = kv;
    this.#clock = clock;
  }

  /** Records that `email` is `userId` (called at sign-in). */
  async note(userId: string, email: string): Promise<void> {
    if (!email) return;
    const key = await keyOf(email);
    const now = this.#clock();
    const known = await this.#kv.get(key, "json");
    if (isEntry(known) && known.userId === userId && now - known.at < REFRESH_MS) return;
    await this.#kv.put(key, JSON.stringify({ userId, at: now } satisfies Entry), {
      expirationTtl: DIRECTORY_TTL_SECONDS,
    });
  }

  /** The user id of the person who last signed in here with `email`, or null. */
  async find(email: string): Promise<string | null> {
    const known = await this.#kv.get(await keyOf(email), "json");
    return isEntry(known) ? known.userId : null;
  }
}

function keyOf(email: string): Promise<string> {
  return sha256Hex(email.trim().toLowerCase()).then((hash) => `${PREFIX}${hash}`);
}
