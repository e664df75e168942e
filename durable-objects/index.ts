/**
 * @module gatehouse/durable-objects
 * The Durable Object classes a host worker exports and binds in its
 * wrangler config. Exported by name.
 */
export {};
