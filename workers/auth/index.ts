/**
 * @module gatehouse/auth
 * The authentication module of the spec. Exported by name; nothing else
 * under workers/auth is API.
 */
export {};
