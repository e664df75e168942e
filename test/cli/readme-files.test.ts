// README's file blocks are the files `init` writes (issue 27): every fenced block that README marks
// with `<!-- file: <project>/<path> -->` must be, byte for byte, what the templates render for the
// README's projects (`init my-auth`, then `init --app my-app --auth my-auth`). A drift fails here
// with the expected text in the diff: paste it into README, or change the template.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_APP_PORT, renderAppProject, renderProject } from "../../scripts/cli/templates/index.ts";
import { REPO_ROOT } from "./helpers.ts";

/** The files README must show: a test fails when one of them loses its marker. */
const REQUIRED = ["my-auth/src/index.ts", "my-app/src/index.ts", "my-app/wrangler.jsonc"];
/** Files that hold secrets are never shown. */
const NEVER = ["my-auth/.dev.vars"];

interface FileBlock {
  path: string;
  text: string;
  line: number;
}

/** Every `<!-- file: … -->` marker and the fenced block right under it; a marker without one is an error. */
function fileBlocks(markdown: string): FileBlock[] {
  const lines = markdown.split("\n");
  const blocks: FileBlock[] = [];
  lines.forEach((line, index) => {
    const marker = /^<!-- file: (\S+) -->$/.exec(line);
    if (!marker) return;
    const fence = /^(```+)[\w-]*$/.exec(lines[index + 1] ?? "");
    if (!fence) throw new Error(`README.md:${index + 1}: "${line}" is not followed by a fenced block`);
    const end = lines.indexOf(fence[1]!, index + 2);
    if (end === -1) throw new Error(`README.md:${index + 2}: the block of ${marker[1]} is not closed`);
    blocks.push({ path: marker[1]!, text: `${lines.slice(index + 2, end).join("\n")}\n`, line: index + 1 });
  });
  return blocks;
}

/** What the templates write for README's two projects, by `<project>/<path>`. */
function renderedFiles(): Map<string, string> {
  const secret = "x".repeat(43);
  const auth = renderProject({
    name: "my-auth",
    gatehouseVersion: "0.0.0",
    nodePackage: false,
    secrets: {
      SESSION_SECRET: secret,
      ADMIN_API_TOKEN: secret,
      IDENTITY_WEBHOOK_SECRET: secret,
      SECURITY_EVENTS_WEBHOOK_SECRET: secret,
    },
  });
  const app = renderAppProject({
    name: "my-app",
    authName: "my-auth",
    authOrigin: "http://127.0.0.1:8787",
    port: DEFAULT_APP_PORT,
    gatehouseVersion: "0.0.0",
    nodePackage: false,
  });
  return new Map([
    ...[...auth].map(([path, text]) => [`my-auth/${path}`, text] as const),
    ...[...app].map(([path, text]) => [`my-app/${path}`, text] as const),
  ]);
}

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

describe("README's file blocks", () => {
  const blocks = fileBlocks(readme);
  const files = renderedFiles();

  it("show the auth worker's src/index.ts and the app's worker and wrangler config, and no secret file", () => {
    const shown = blocks.map((block) => block.path);
    expect(shown).toEqual(expect.arrayContaining(REQUIRED));
    for (const path of NEVER) expect(shown).not.toContain(path);
    expect(new Set(shown).size).toBe(shown.length);
  });

  it.each(blocks.map((block) => [block.path, block] as const))("%s is the file the template writes", (path, block) => {
    const expected = files.get(path);
    expect(expected, `README.md:${block.line} names ${path}, which init does not write`).toBeDefined();
    expect(block.text, `README.md:${block.line}: ${path} differs from the template`).toBe(expected);
  });

  it("the check itself sees a drift, a marker without a block and an unclosed block", () => {
    const drifted = readme.replace('  // cookie: { domain: "example.com" },', '  cookie: { domain: "example.com" },');
    const changed = fileBlocks(drifted).find((block) => block.path === "my-auth/src/index.ts");
    expect(changed?.text).not.toBe(files.get("my-auth/src/index.ts"));
    expect(() => fileBlocks("<!-- file: a/b.ts -->\ntext\n")).toThrow(/not followed by a fenced block/);
    expect(() => fileBlocks("<!-- file: a/b.ts -->\n```ts\ncode\n")).toThrow(/not closed/);
  });
});
