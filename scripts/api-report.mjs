#!/usr/bin/env node
/**
 * The API report: one file per package subpath, api/<entry>.api.md (the root's is api/index.api.md),
 * holding every name the subpath exports with its declaration as the built dist/<entry>.d.ts
 * declares it, then the declarations those reach that the subpath does not export, without doc
 * comments. Each name is followed to the file that declares it, through whatever shared
 * dist/chunks/*.d.ts the declaration bundler made, and printed under the name users import (a
 * bundler's `Foo$1` under its source name), so a change of chunking changes no report: only a
 * change to what users can import does. Checked in; the package test runs `--check` against a
 * fresh build (and against a build chunked another way). api-extractor does not run with
 * TypeScript 7, hence this plain text snapshot.
 *
 *   npm run build && node scripts/api-report.mjs [--check] [--dist <dir>]
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
// tsdown's own bundler, which wrote the declarations: its parser (oxc) reads them.
import { parseSync } from "rolldown/utils";

const root = resolve(import.meta.dirname, "..");
const PACKAGE = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
export const API_DIR = join(root, "api");

/** The subpaths of package.json `exports` with declarations: `.` → `index`, `./rate-limit` → `rate-limit`. */
export function subpaths() {
  return Object.entries(PACKAGE.exports)
    .filter(([, target]) => typeof target === "object" && target.types)
    .map(([subpath, target]) => ({
      subpath,
      specifier: `${PACKAGE.name}${subpath.slice(1)}`,
      entry: subpath === "." ? "index" : subpath.slice(2),
      types: target.types.replace(/^\.\/dist\//, ""),
    }));
}

/** The report file of a subpath. */
export const reportPath = (entry) => join(API_DIR, `${entry}.api.md`);

/** A bundler's rename of a clashing name (`Foo$1`) back to its source name. */
const sourceName = (local) => local.replace(/\$\d+$/, "");

const TYPE_KINDS = new Set(["TSInterfaceDeclaration", "TSTypeAliasDeclaration"]);

/** One parsed declaration file: its declarations, imports and exports by name. */
class DeclarationFile {
  constructor(path) {
    this.path = path;
    this.text = readFileSync(path, "utf8");
    const parsed = parseSync(path, this.text, { lang: "dts" });
    if (parsed.errors.length) throw new Error(`${path}: ${parsed.errors.map((e) => e.message).join("; ")}`);
    this.comments = parsed.comments;
    /** local name → its top-level statements (overloads and merged declarations: several) */
    this.declarations = new Map();
    /** local name → { file } (a relative import, resolved) or { module } (a package), and the imported name */
    this.imports = new Map();
    /** exported name → local name, or an import-like target for `export { x } from "…"` */
    this.exports = new Map();
    for (const statement of parsed.program.body) this.#read(statement);
  }

  #read(statement) {
    switch (statement.type) {
      case "ImportDeclaration":
        for (const s of statement.specifiers) {
          const imported =
            s.type === "ImportSpecifier"
              ? (s.imported.name ?? s.imported.value)
              : s.type === "ImportDefaultSpecifier"
                ? "default"
                : "*";
          this.imports.set(s.local.name, { ...this.#source(statement.source.value), imported });
        }
        return;
      case "ExportNamedDeclaration":
        if (statement.declaration) {
          this.#read(statement.declaration);
          for (const name of declaredNames(statement.declaration)) this.exports.set(name, { local: name });
        }
        for (const s of statement.specifiers) {
          const exported = s.exported.name ?? s.exported.value;
          const local = s.local.name ?? s.local.value;
          this.exports.set(
            exported,
            statement.source ? { ...this.#source(statement.source.value), imported: local } : { local },
          );
        }
        return;
      case "ExportAllDeclaration":
      case "ExportDefaultDeclaration":
        throw new Error(`${this.path}: ${statement.type} is not supported by the API report`);
      default:
        if (statement.type === "TSModuleDeclaration" && statement.id.type !== "Identifier")
          throw new Error(`${this.path}: module augmentation is not supported by the API report`);
        for (const name of declaredNames(statement)) {
          if (!this.declarations.has(name)) this.declarations.set(name, []);
          this.declarations.get(name).push(statement);
        }
    }
  }

  #source(specifier) {
    if (!specifier.startsWith(".")) return { module: specifier };
    return { file: resolve(dirname(this.path), specifier.replace(/\.js$/, ".d.ts")) };
  }
}

function declaredNames(statement) {
  if (statement.type === "VariableDeclaration") return statement.declarations.map((d) => d.id.name);
  if (statement.id?.type === "Identifier") return [statement.id.name];
  throw new Error(`unexpected top-level ${statement.type}`);
}

/** The leftmost identifier of `a.b.c` (a qualified name or a member expression). */
function leftmost(node) {
  while (node) {
    if (node.type === "Identifier") return node;
    node = node.type === "TSQualifiedName" ? node.left : node.type === "MemberExpression" ? node.object : null;
  }
  return null;
}

/** Names a statement binds for its own body: type parameters, mapped-type keys, `infer` names. */
function boundBy(node) {
  const names = [];
  for (const p of node.typeParameters?.params ?? []) names.push(p.name.name);
  if (node.type === "TSMappedType") names.push(node.key?.name ?? node.typeParameter?.name?.name);
  if (node.type === "TSConditionalType") {
    const infer = (n) => {
      if (!n || typeof n !== "object") return;
      if (n.type === "TSInferType") names.push(n.typeParameter.name.name);
      for (const v of Object.values(n)) if (v && typeof v === "object") infer(v);
    };
    infer(node.extendsType);
  }
  return names.filter(Boolean);
}

/**
 * The names a statement refers to at top level: type references, `typeof`, heritage clauses, and
 * `import("./chunk.js").Name` types. Each with the source range to rewrite when it is printed.
 */
function references(statement) {
  const found = [];
  const visit = (node, bound) => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n, bound);
      return;
    }
    if (!node || typeof node !== "object" || typeof node.type !== "string") return;
    const names = boundBy(node);
    const scope = names.length ? new Set([...bound, ...names]) : bound;
    const note = (target) => {
      const id = leftmost(target);
      if (id && !scope.has(id.name)) found.push({ name: id.name, start: id.start, end: id.end });
    };
    if (node.type === "TSTypeReference") note(node.typeName);
    else if (node.type === "TSTypeQuery" && node.exprName.type !== "TSImportType") note(node.exprName);
    else if (node.type === "TSClassImplements" || node.type === "TSInterfaceHeritage") note(node.expression);
    else if (node.type === "ClassDeclaration" && node.superClass) note(node.superClass);
    else if (node.type === "TSImportType" && node.source.value.startsWith(".")) {
      const id = leftmost(node.qualifier);
      if (!id) throw new Error(`an import type without a name: ${JSON.stringify(node.source.value)}`);
      found.push({ name: id.name, start: node.start, end: id.end, chunk: node.source.value });
      visit(node.typeArguments, scope);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key !== "type" && value && typeof value === "object") visit(value, scope);
    }
  };
  visit(statement, new Set());
  return found;
}

/** Reads declaration files once each. */
class Declarations {
  #files = new Map();

  file(path) {
    if (!this.#files.has(path)) {
      if (!existsSync(path)) throw new Error(`no ${relative(root, path)}: run npm run build first`);
      this.#files.set(path, new DeclarationFile(path));
    }
    return this.#files.get(path);
  }

  /**
   * Where `name` of `file` is declared, through imports and chunks' re-exports:
   * `{ key, file, local }` for ours, `{ key, module, imported }` for a package's.
   */
  resolve(file, name) {
    const seen = new Set();
    for (;;) {
      const key = `${file.path}#${name}`;
      if (seen.has(key)) throw new Error(`an import cycle at ${key}`);
      seen.add(key);
      if (file.declarations.has(name)) return { key, file, local: name };
      const imported = file.imports.get(name);
      if (!imported) return null; // a global: Request, KVNamespace, …
      if (imported.module) return { key: `${imported.module}#${imported.imported}`, ...imported };
      ({ file, name } = this.exported(this.file(imported.file), imported.imported));
    }
  }

  /** The declaration behind `exportedName` of `file`. */
  behind(file, exportedName) {
    const { file: declaring, name } = this.exported(file, exportedName);
    return this.resolve(declaring, name);
  }

  /** The declaration a reference of `file` names (`import("./chunk.js").Name` included), or null for a global. */
  referenced(file, ref) {
    if (!ref.chunk) return this.resolve(file, ref.name);
    return this.behind(this.file(resolve(dirname(file.path), ref.chunk.replace(/\.js$/, ".d.ts"))), ref.name);
  }

  /** The local name behind an export of a chunk (`export { a as b }`), or the next file for a re-export. */
  exported(file, exportedName) {
    const target = file.exports.get(exportedName);
    if (!target) throw new Error(`${relative(root, file.path)} does not export ${exportedName}`);
    if (target.local) return { file, name: target.local };
    if (target.module) throw new Error(`${relative(root, file.path)} re-exports ${exportedName} of a package`);
    return this.exported(this.file(target.file), target.imported);
  }
}

/** A subpath's exported names → their declarations. */
function exportsOf({ specifier, types }, dist, all) {
  const file = all.file(join(dist, types));
  // exported name → declaration; a name re-exported from a package stays a package import
  const exported = new Map();
  for (const [name, target] of file.exports) {
    const where = target.local
      ? all.resolve(file, target.local)
      : target.module
        ? { key: `${target.module}#${target.imported}`, ...target }
        : all.behind(all.file(target.file), target.imported);
    if (!where) throw new Error(`${specifier}: ${name} resolves to no declaration`);
    exported.set(name, where);
  }
  return exported;
}

/**
 * The text of one subpath's report. `owners`: declaration key → the specifiers that export it, so
 * each declaration says where else it is exported (or that no subpath exports it).
 */
function subpathReport({ specifier, types }, exported, owners, all) {
  // Everything the exported declarations reach, ours and the packages'.
  const reached = new Map();
  const queue = [...exported.values()];
  while (queue.length) {
    const target = queue.shift();
    if (reached.has(target.key)) continue;
    reached.set(target.key, target);
    if (!target.local) continue;
    for (const statement of target.file.declarations.get(target.local)) {
      for (const ref of references(statement)) {
        const next = all.referenced(target.file, ref);
        if (next) queue.push(next);
      }
    }
  }

  // The name each declaration is printed under: what this subpath exports it as, else its source name.
  const exportNames = new Map();
  for (const [name, target] of exported) {
    if (!exportNames.has(target.key)) exportNames.set(target.key, []);
    exportNames.get(target.key).push(name);
  }
  const display = new Map();
  const owner = new Map();
  for (const target of reached.values()) {
    const name = exportNames.get(target.key)?.sort()[0] ?? sourceName(target.local ?? target.imported);
    display.set(target.key, name);
    if (target.local) {
      if (owner.has(name))
        throw new Error(`${specifier}: two different declarations named ${name} (give one of them another name)`);
      owner.set(name, target.key);
    }
  }
  // A package's name that clashes with one of ours is written `import("package").Name`.
  const imports = new Map();
  for (const target of reached.values()) {
    if (target.local) continue;
    const name = display.get(target.key);
    if (owner.has(name) || target.imported === "default" || target.imported === "*") {
      const member = target.imported === "*" ? "" : `.${target.imported}`;
      display.set(target.key, `import(${JSON.stringify(target.module)})${member}`);
    } else {
      if (!imports.has(target.module)) imports.set(target.module, new Set());
      imports.get(target.module).add(name);
    }
  }

  /** A declaration's statements as source text, names rewritten to their display names, comments left out. */
  const print = (target) =>
    target.file.declarations
      .get(target.local)
      .map((statement) => {
        const edits = target.file.comments
          .filter((c) => c.start >= statement.start && c.end <= statement.end)
          .map((c) => ({ start: c.start, end: c.end, text: "" }));
        const idOf = (s) => (s.type === "VariableDeclaration" ? s.declarations.map((d) => d.id) : [s.id]);
        for (const id of idOf(statement)) {
          const name = display.get(target.key);
          if (id.name === target.local && name !== id.name)
            edits.push({ start: id.start, end: id.start + id.name.length, text: name });
        }
        for (const ref of references(statement)) {
          const to = all.referenced(target.file, ref);
          const name = to && display.get(to.key);
          if (name && (ref.chunk || name !== ref.name)) edits.push({ start: ref.start, end: ref.end, text: name });
        }
        edits.sort((a, b) => a.start - b.start);
        let out = "";
        let at = statement.start;
        for (const edit of edits) {
          if (edit.start < at) continue; // inside a comment already left out
          out += target.file.text.slice(at, edit.start) + edit.text;
          at = edit.end;
        }
        out += target.file.text.slice(at, statement.end);
        return out
          .split("\n")
          .map((line) => line.trimEnd())
          .filter((line) => line.trim() !== "")
          .join("\n");
      })
      .join("\n");

  const byName = (a, b) =>
    display.get(a.key) < display.get(b.key) ? -1 : display.get(a.key) > display.get(b.key) ? 1 : 0;
  const ours = [...reached.values()].filter((t) => t.local).sort(byName);
  const isExported = (t) => exportNames.has(t.key);
  const isType = (t) => t.local && t.file.declarations.get(t.local).every((s) => TYPE_KINDS.has(s.type));
  const exportList = [...exported.keys()].sort().map((name) => {
    const target = exported.get(name);
    const as = display.get(target.key) === name ? name : `${display.get(target.key)} as ${name}`;
    return isType(target) ? `type ${as}` : as;
  });
  const importLines = [...imports.keys()]
    .sort()
    .map((module) => `import { ${[...imports.get(module)].sort().join(", ")} } from ${JSON.stringify(module)};`);
  const notExported = ours.filter((t) => !isExported(t));
  const elsewhere = (t) => (owners.get(t.key) ?? []).filter((s) => s !== specifier);
  const withOwners = (t) => {
    const others = elsewhere(t);
    if (isExported(t)) return others.length ? `// also from ${others.join(", ")}\n${print(t)}` : print(t);
    return `// ${others.length ? `from ${others.join(", ")}` : "exported by no subpath"}\n${print(t)}`;
  };
  const body = [
    ...(importLines.length ? [importLines.join("\n")] : []),
    ...ours.filter(isExported).map(withOwners),
    ...(notExported.length
      ? [`// Not exported by ${specifier}; the declarations above use them:`, ...notExported.map(withOwners)]
      : []),
    `export { ${exportList.join(", ")} };`,
  ];
  return [
    `# ${specifier}: API report`,
    "",
    `Generated by \`node scripts/api-report.mjs\` from the built declarations (dist/${types} and the`,
    "shared declarations it imports), doc comments left out. Do not edit: a change here is a change to",
    `what users can import from \`${specifier}\`; review it as such.`,
    "",
    `${exported.size} exported names.`,
    "",
    "```ts",
    body.join("\n\n"),
    "```",
    "",
  ].join("\n");
}

/** Report path → text, for every subpath of the current build in `dist`. */
export function apiReports(dist = join(root, "dist")) {
  const all = new Declarations();
  const exported = subpaths().map((s) => ({ ...s, names: exportsOf(s, dist, all) }));
  const owners = new Map();
  for (const { specifier, names } of exported) {
    for (const target of new Map([...names.values()].map((t) => [t.key, t])).values()) {
      if (!owners.has(target.key)) owners.set(target.key, []);
      owners.get(target.key).push(specifier);
    }
  }
  return new Map(exported.map((s) => [reportPath(s.entry), subpathReport(s, s.names, owners, all)]));
}

/** Report files in api/ that no subpath writes any more. */
function stale(reports) {
  return readdirSync(API_DIR)
    .filter((f) => f.endsWith(".api.md"))
    .map((f) => join(API_DIR, f))
    .filter((f) => !reports.has(f));
}

if (import.meta.main ?? process.argv[1] === import.meta.filename) {
  const at = process.argv.indexOf("--dist");
  const reports = apiReports(at > 0 ? resolve(process.argv[at + 1]) : undefined);
  if (process.argv.includes("--check")) {
    const problems = [];
    for (const [path, text] of reports) {
      const current = existsSync(path) ? readFileSync(path, "utf8") : null;
      if (current === null) problems.push(`${relative(root, path)} is missing`);
      else if (current !== text) problems.push(`${relative(root, path)} differs from the built declarations`);
    }
    for (const path of stale(reports)) problems.push(`${relative(root, path)} belongs to no subpath`);
    if (problems.length) {
      console.error(`gatehouse: ${problems.join("; ")}. Review the change and run npm run api:report`);
      process.exit(1);
    }
    console.log(`gatehouse: the ${reports.size} API reports in api/ match the built declarations`);
  } else {
    for (const path of stale(reports)) rmSync(path);
    for (const [path, text] of reports) writeFileSync(path, text);
    console.log(`gatehouse: wrote ${reports.size} API reports in api/`);
  }
}
