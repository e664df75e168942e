/**
 * Issue 27: every TypeScript block of README that is not a file (those are the templates,
 * test/cli/readme-files.test.ts) type-checks against the built package, installed from the tarball,
 * under a strict tsconfig. A fragment that runs inside a handler (it uses `request`, `env`, `return`)
 * (a block that exports nothing of its own) is checked inside one: its imports and re-exports stay
 * at the top, its body goes into an async function whose
 * parameters name what README says is in scope there. Nothing else is added to a block.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, inject, it } from "vitest";
import { node, REPO_ROOT, TSC } from "./support.ts";

const pkg = inject("pkg");

/** What a handler fragment may name: the request, the worker's env (the bindings README names), and its own values. */
const HANDLER_SCOPE = `request: Request,
  env: {
    SECURITY_EVENTS_WEBHOOK_SECRET: string;
    HYPERDRIVE: Hyperdrive;
    CACHE: KVNamespace;
    DB: D1Database;
  },
  id: string,`;

function snippets(readme: string): string[] {
  const out: string[] = [];
  const block = /(<!-- file: [^>]*-->\s*)?```(?:ts|typescript)\n([\s\S]*?)```/g;
  for (let m = block.exec(readme); m; m = block.exec(readme)) if (!m[1]) out.push(m[2]!);
  return out;
}

/** A module as tsc sees it: whole when it is one, else imports on top and the rest in a handler. */
function asModule(code: string, index: number): string {
  // A module exports something of its own; a fragment only runs (or re-exports).
  const fragment = !/^export (default |const |function |class |async )/m.test(code);
  if (!fragment) return code;
  const lines = code.split("\n");
  const imports = lines.filter((l) => /^(import|export .* from )/.test(l));
  const body = lines.filter((l) => !/^(import|export .* from )/.test(l));
  return `${imports.join("\n")}\n\nexport async function readmeSnippet${index}(\n  ${HANDLER_SCOPE}\n): Promise<unknown> {\n${body.join("\n")}\n  return undefined;\n}\n`;
}

it("every TypeScript block of README that is not a file type-checks against the installed package", async () => {
  const blocks = snippets(readFileSync(join(REPO_ROOT, "README.md"), "utf8"));
  expect(blocks.length).toBeGreaterThanOrEqual(5);
  const dir = join(pkg.work, "readme-snippets");
  mkdirSync(join(dir, "src"), { recursive: true });
  symlinkSync(join(pkg.fixtures["auth-worker"], "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "readme-snippets", private: true, type: "module" })}\n`,
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "es2022",
          module: "es2022",
          moduleResolution: "bundler",
          lib: ["es2022"],
          types: ["@cloudflare/workers-types"],
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ["src"],
      },
      null,
      2,
    )}\n`,
  );
  for (const [i, code] of blocks.entries()) writeFileSync(join(dir, "src", `snippet-${i}.ts`), asModule(code, i));
  const tsc = await node(TSC, ["-p", "tsconfig.json"], dir);
  expect(tsc.code, tsc.output).toBe(0);
}, 120_000);
