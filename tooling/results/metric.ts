/**
 * @module
 * One measured figure of `npm run bench` or `npm run load`: its value, unit and goal. Types only, so
 * the benches running in workerd and the Node tools that write the results share it.
 */
export interface Metric {
  value: number;
  unit: string;
  goal: string;
}
