/**
 * Issue 25 item 4 (low): `CONNECT` answered a generic 500, because workerd hands it to the default
 * export's `connect(socket)` handler and the worker had none ("Handler does not export a connect()
 * function" in the log). The worker now exports one that closes the socket at once, unanswered.
 * `exports.default.connect()` opens exactly such a connection to the worker under test (workerd's
 * loopback service binding to this worker's default export), so the handler runs in workerd.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { send } from "./helpers/world";
import worker from "./worker";

/** How many bytes the peer of `socket` writes before it closes. */
async function bytesUntilClosed(socket: Socket): Promise<number> {
  const reader = socket.readable.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}

describe("issue 25 item 4: a raw connection (CONNECT) to the auth worker", () => {
  it("the deployed worker (what createAuthWorker() returns) exports a connect handler", () => {
    expect(typeof worker.connect).toBe("function");
  });

  it("is closed at once by the worker's handler: no byte written, no error, and the next request is answered", async () => {
    const handler = vi.spyOn(worker, "connect");
    try {
      const socket = exports.default.connect("auth.example.com:443");
      await socket.opened;
      expect(await bytesUntilClosed(socket)).toBe(0);
      await expect(socket.closed).resolves.toBeUndefined();
      // The worker's own handler closed it (without one, workerd would have thrown in the worker).
      expect(handler).toHaveBeenCalledOnce();
      await expect(handler.mock.results[0]!.value).resolves.toBeUndefined();
    } finally {
      handler.mockRestore();
    }
    expect((await send("/health")).status).toBe(200);
  });
});
