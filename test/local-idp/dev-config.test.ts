// Issue 14 finding 8: development values never ship as production configuration. The example
// consumer's wrangler.toml carries no login URL (it comes from .dev.vars locally, from the
// deployment otherwise), and no committed config names a loopback URL outside its [dev] section.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(resolve(root, path), "utf8");

/** The config without its [dev] table (wrangler dev's own listen address is development-only). */
function withoutDevTable(toml: string): string {
  return toml.replace(/^\[dev\][\s\S]*?(?=^\[)/m, "");
}

describe("shipped wrangler configurations", () => {
  it.each(["wrangler.toml", "workers/example-consumer/wrangler.toml"])("%s names no loopback URL", (path) => {
    const toml = withoutDevTable(read(path)).replace(/^\s*#.*$/gm, "");
    expect(toml).not.toMatch(/https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])/);
  });

  it("the example consumer's development login URL lives in its .dev.vars.example", () => {
    expect(read("workers/example-consumer/wrangler.toml")).not.toMatch(/^AUTH_LOGIN_URL\s*=/m);
    expect(read("workers/example-consumer/.dev.vars.example")).toMatch(/^AUTH_LOGIN_URL=http:\/\/127\.0\.0\.1:8787\//m);
  });
});
