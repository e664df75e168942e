/**
 * @module
 * `QueueSender`: the spec's wrapper over a Queues producer binding. `send`
 * enqueues one message, `sendBatch` several in one operation (Queues accepts up
 * to 100 messages and 256 KB per batch). It adds nothing on the hot path and
 * never retries on its own: a rejected send rejects the caller's promise.
 */

/** The spec's `QueueSendOptions` and batch entries, for typing calls. */
type SendOptions = QueueSendOptions;
type SendRequest<T> = MessageSendRequest<T>;

export type { SendOptions as QueueSendOptions, SendRequest as MessageSendRequest };

/**
 * @example
 * ```ts
 * const jobs = new QueueSender<{ userId: string }>(env.JOBS);
 * await jobs.send({ userId: "u_1" }, { delaySeconds: 30 });
 * await jobs.sendBatch([{ body: { userId: "u_2" } }, { body: { userId: "u_3" } }]);
 * ```
 */
export class QueueSender<Body = unknown> {
  readonly #queue: Queue<Body>;

  constructor(queue: Queue<Body>) {
    this.#queue = queue;
  }

  /** The underlying binding. */
  get raw(): Queue<Body> {
    return this.#queue;
  }

  /** Sends one message. `options`: `contentType` ("json" by default, "text", "bytes", "v8"), `delaySeconds`. */
  async send<T extends Body = Body>(message: T, options?: QueueSendOptions): Promise<void> {
    await this.#queue.send(message, options);
  }

  /** Sends several messages (`{ body, contentType?, delaySeconds? }`) in one operation. */
  async sendBatch<T extends Body = Body>(messages: Iterable<MessageSendRequest<T>>): Promise<void> {
    await this.#queue.sendBatch(messages);
  }
}
