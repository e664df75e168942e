/**
 * Inside the repository `gatehouse-workers` and its subpaths resolve to the sources through three
 * tables that must agree with package.json's `exports` (what users get): tooling/source/aliases.ts
 * (every Vitest project), tsconfig.json `paths`, and the `[alias]` of each wrangler config that has
 * one; tsdown builds the same entries. A subpath added to one and forgotten in another fails here.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_NAME, SOURCE_ENTRIES } from "../../tooling/source/aliases.ts";
import { ROOT } from "./imports.ts";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const manifest = JSON.parse(read("package.json")) as { name: string; exports: Record<string, unknown> };
const subpaths = Object.keys(manifest.exports)
  .filter((s) => s !== "./package.json")
  .sort();
const specifier = (subpath: string) => `${PACKAGE_NAME}${subpath.slice(1)}`;

describe("the package's subpaths, wherever they are named", () => {
  it("tooling/source/aliases.ts maps exactly package.json's subpaths", () => {
    expect(manifest.name).toBe(PACKAGE_NAME);
    expect(Object.keys(SOURCE_ENTRIES).sort()).toEqual(subpaths);
  });

  it("tsconfig.json paths say the same", () => {
    const paths = (JSON.parse(read("tsconfig.json")) as { compilerOptions: { paths: Record<string, string[]> } })
      .compilerOptions.paths;
    expect(Object.keys(paths).sort()).toEqual(subpaths.map(specifier).sort());
    for (const [subpath, file] of Object.entries(SOURCE_ENTRIES))
      expect(paths[specifier(subpath)]).toEqual([`./${file}`]);
  });

  it("tsdown builds one entry per subpath, from the same file", () => {
    const config = read("tsdown.config.ts");
    for (const [subpath, file] of Object.entries(SOURCE_ENTRIES)) {
      const name = subpath === "." ? "index" : subpath.slice(2);
      expect(config).toMatch(new RegExp(`["']?${name}["']?: "${file}"`));
    }
  });

  it.each(Object.entries(SOURCE_ENTRIES))(
    "%s: its entry file %s names it in a @module header and exports by name",
    (subpath, file) => {
      const text = read(file);
      expect(text).toMatch(new RegExp(`^/\\*\\*\\n \\* @module ${specifier(subpath)}\\n`));
      expect(text).not.toMatch(/^export \*/m);
    },
  );

  it.each([
    "test/consumer/auth-fixture/wrangler.toml",
    "test/consumer/wrangler.toml",
    "test/security/consumer/wrangler.toml",
    "workers/example-consumer/wrangler.toml",
  ])("%s aliases every subpath to its source", (config) => {
    const text = read(config);
    const table = text.slice(text.indexOf("[alias]"));
    const aliases = Object.fromEntries(
      [...table.matchAll(/^"([^"]+)" = "([^"]+)"$/gm)].map(([, name, target]) => [
        name,
        relative(ROOT, resolve(ROOT, dirname(config), target!)),
      ]),
    );
    expect(aliases).toEqual(
      Object.fromEntries(Object.entries(SOURCE_ENTRIES).map(([subpath, file]) => [specifier(subpath), file])),
    );
  });
});
