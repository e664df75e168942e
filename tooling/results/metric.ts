/**
 * @module
 * One measured figure of `npm run bench` or `npm run load`: its value, unit and goal, why a missed
 * goal is missed, and whether the figure was measured or is a bound a document states. Types only,
 * so the benches running in workerd and the Node tools that write the results share it.
 */
export interface Metric {
  value: number;
  unit: string;
  /** `<= 1.10`, `< 5`, `1.00 ± 0.05`, … or `reported …` (shown, never judged). */
  goal: string;
  /**
   * Why the goal is missed, in a sentence: shown beside the verdict (report and console) only when
   * the goal is missed in the run. A missed goal stays a goal; the reason says what stands in the way.
   */
  reason?: string;
  /**
   * Where the figure comes from: `measured` in this run, or a `documented bound` (a figure a
   * platform or library documents, which a local run cannot measure; `source` names the document).
   * Unset: measured.
   */
  kind?: "measured" | "documented bound";
  /** The document a documented bound is taken from (its address and the words it uses). */
  source?: string;
}
