/**
 * @module
 * `ServiceProvider` (see `Application`): defined beside `Application`, which
 * runs it, so the two modules do not import each other; exported here by name.
 */
export { ServiceProvider } from "../application";
