/** The worker under attack: the example consumer, exactly as deployed. */
export { default } from "../../../workers/example-consumer/worker";
