/** The worker under test: the example consumer, exactly as deployed. */
export { default } from "../../workers/example-consumer/worker";
