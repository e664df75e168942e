/**
 * Fixture worker for the VersionedKVStore tests: `GET /flags` reads the
 * current version of a key through the SDK, as a host worker would.
 */
import { VersionedKVStore } from "gatehouse-workers/versioned-kv";

export default {
  async fetch(request, env): Promise<Response> {
    const store = new VersionedKVStore(env.VKV);
    const key = new URL(request.url).pathname.slice(1);
    return Response.json({ version: await store.getVersion(key), value: await store.get(key) });
  },
} satisfies ExportedHandler<Cloudflare.Env>;
