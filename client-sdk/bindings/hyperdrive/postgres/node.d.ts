/**
 * The one Node built-in the Hyperdrive socket uses, available in workerd with
 * `nodejs_compat` (postgres.js needs that flag anyway). Declared minimally here
 * because the worker tsconfig has no Node types.
 */
declare module "node:buffer" {
  /** A Node Buffer: postgres.js reads its protocol messages with Buffer methods. */
  export const Buffer: { from(data: Uint8Array): Uint8Array };
}
