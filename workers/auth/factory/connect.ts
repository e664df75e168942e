/**
 * @module
 * The auth worker's `connect(socket)` handler. workerd hands it an HTTP `CONNECT` that reaches the
 * worker's own socket, and any connection another Worker opens with `binding.connect()`; without
 * it, workerd answers a 500 and logs "Handler does not export a connect() function". The worker
 * tunnels nothing: it closes the socket at once, reads none of the peer's bytes and writes none.
 * (workerd has already answered the `CONNECT` with `200` by the time the handler runs, so a status
 * line written here would only arrive inside the tunnel; see ARCHITECTURE.md, Threat model.)
 */

/** Closes a raw connection unanswered; a peer that already went away changes nothing. */
export async function refuseConnection(socket: Socket): Promise<void> {
  await socket.close().catch(() => {});
}
