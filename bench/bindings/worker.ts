/** The bench project's worker: nothing to serve, the benchmarks use its bindings. */
export default {
  async fetch(): Promise<Response> {
    return new Response("bench-bindings");
  },
} satisfies ExportedHandler;
