/**
 * A "customer script" for the dispatch-namespace tests: the stand-in
 * namespace hands back service bindings to workers running this file under
 * different names (CUSTOMER = "alpha" / "beta"). Plain JavaScript because
 * miniflare loads auxiliary workers without a bundler.
 */
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/rpc/")) {
      const { args } = await request.json();
      return Response.json({ customer: env.CUSTOMER, method: url.pathname.slice(5), args });
    }
    return Response.json({ customer: env.CUSTOMER, method: request.method, path: url.pathname });
  },
};
