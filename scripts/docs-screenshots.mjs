/**
 * `npm run docs:screenshots`: copies the screenshots the browser tests just wrote to their ignored
 * output folder (test-results/e2e) into docs/screenshots, the copies README links to. The tests
 * never write a tracked file; only this script does, when someone asks for fresh pictures.
 * Run by the npm script after the browser tests that take them.
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const from = join(root, "test-results/e2e");
const to = join(root, "docs/screenshots");
const SHOTS = ["landing", "account-sessions", "account-activity", "admin-console"];

mkdirSync(to, { recursive: true });
const missing = SHOTS.filter((name) => !existsSync(join(from, `${name}.png`)));
if (missing.length > 0) {
  console.error(`docs:screenshots: the browser tests wrote no ${missing.join(", ")} (test-results/e2e)`);
  process.exit(1);
}
for (const name of SHOTS) {
  copyFileSync(join(from, `${name}.png`), join(to, `${name}.png`));
  console.log(`docs/screenshots/${name}.png (${Math.round(statSync(join(to, `${name}.png`)).size / 1024)} kB)`);
}
