/**
 * @module
 * The socket postgres.js talks through (its `socket` option), opened with
 * `Hyperdrive.connect()`. It replaces postgres.js's own Workers polyfill, whose
 * read loop emits "error" after the connection removed its listeners, so every
 * `end()` left an unhandled rejection (porsager/postgres#1196, #1202). It never
 * emits "error" with nobody listening, and it closes exactly once.
 */
import { Buffer } from "node:buffer";

type Listener = (...args: unknown[]) => void;

/** The part of Node's EventEmitter that postgres.js uses on a socket. */
class Emitter {
  readonly #listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.#listeners.set(event, [...(this.#listeners.get(event) ?? []), listener]);
    return this;
  }

  once(event: string, listener: Listener): this {
    const wrapper: Listener = (...args) => {
      this.removeListener(event, wrapper);
      listener(...args);
    };
    return this.on(event, wrapper);
  }

  removeListener(event: string, listener: Listener): this {
    const list = this.#listeners.get(event) ?? [];
    const i = list.indexOf(listener);
    if (i !== -1) this.#listeners.set(event, list.toSpliced(i, 1));
    return this;
  }

  removeAllListeners(event?: string): this {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
    return this;
  }

  listenerCount(event: string): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  emit(event: string, ...args: unknown[]): boolean {
    const list = this.#listeners.get(event) ?? [];
    for (const listener of list) listener(...args);
    return list.length > 0;
  }
}

export class PostgresSocket extends Emitter {
  /** postgres.js checks "open" before writing its Terminate message and "closed" before waiting for close. */
  readyState: "open" | "closed" = "open";
  readonly #socket: Socket;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #closed = false;

  constructor(socket: Socket) {
    super();
    this.#socket = socket;
    this.#writer = socket.writable.getWriter();
    socket.closed.then(
      () => this.#finish(),
      (err: unknown) => this.#fail(err),
    );
    void this.#read();
  }

  write(data: Uint8Array, callback?: () => void): boolean {
    this.#writer.write(data).then(
      () => callback?.(),
      (err: unknown) => this.#fail(err),
    );
    return true;
  }

  end(data?: Uint8Array): void {
    if (data) this.write(data, () => this.#shutdown());
    else this.#shutdown();
  }

  destroy(): void {
    this.#shutdown();
  }

  async #read(): Promise<void> {
    const reader = this.#socket.readable.getReader();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        this.emit("data", Buffer.from(value));
      }
    } catch (err) {
      this.#fail(err);
      return;
    }
    this.#finish();
  }

  #shutdown(): void {
    this.#socket.close().catch(() => {});
  }

  #fail(err: unknown): void {
    if (this.#closed) return;
    if (this.listenerCount("error") > 0) this.emit("error", err);
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.readyState = "closed";
    this.emit("close");
  }
}
