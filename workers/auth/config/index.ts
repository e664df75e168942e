/**
 * @module
 * The auth worker's environment configuration: the rules (pure, shared with
 * `npm start`) and the fail-closed guard in front of the worker and its RPC entrypoint.
 */
export { assertConfigured, configVerdict, unavailableResponse } from "./guard";
export {
  type ConfigCheck,
  type ConfigProblem,
  type ConfigRule,
  checkAuthEnvironment,
  describeProblems,
  isLoopbackHost,
  MIN_SECRET_LENGTH,
  redirectUrlProblem,
  SECRET_VARIABLES,
  secretProblem,
} from "./rules";
