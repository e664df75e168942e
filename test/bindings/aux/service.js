/**
 * Auxiliary worker behind the `AUX` and `AUX_RPC` service bindings of the
 * bindings tests: a fetch handler that echoes what it received (and answers
 * the `/rpc/{method}` convention of ServiceClient.call), plus an RPC entrypoint.
 * Plain JavaScript because miniflare loads auxiliary workers without a bundler.
 */
import { WorkerEntrypoint } from "cloudflare:workers";

const rpcMethods = {
  add: (a, b) => a + b,
  greet: (name) => `hello ${name}`,
  echo: (...args) => args,
  fail: () => {
    throw new Error("fail was asked to fail");
  },
};

async function echo(request) {
  const url = new URL(request.url);
  const body = request.method === "GET" || request.method === "HEAD" ? null : await request.text();
  return Response.json({
    method: request.method,
    url: request.url,
    path: url.pathname,
    contentType: request.headers.get("content-type"),
    custom: request.headers.get("x-custom"),
    body,
  });
}

export class AuxRpc extends WorkerEntrypoint {
  add(a, b) {
    return a + b;
  }
  async fetch(request) {
    return echo(request);
  }
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/rpc/")) {
      const method = decodeURIComponent(url.pathname.slice("/rpc/".length));
      if (method === "plainText") return new Response("not json", { headers: { "content-type": "text/plain" } });
      if (method === "nothing") return new Response(null, { status: 204 });
      const fn = Object.hasOwn(rpcMethods, method) ? rpcMethods[method] : undefined;
      if (!fn) return Response.json({ error: "no_such_method", method }, { status: 404 });
      const { args } = await request.json();
      try {
        return Response.json(fn(...args));
      } catch (err) {
        return new Response(String(err.message), { status: 500 });
      }
    }
    if (url.pathname === "/status/418") return new Response("short and stout", { status: 418 });
    return echo(request);
  },
};
