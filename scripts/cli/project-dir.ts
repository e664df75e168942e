/**
 * Writing a generated project (the auth worker's or an app's): the directory must be empty unless
 * forced, every path is checked before the first write, each file is opened exclusively (never an
 * overwrite) and the private ones get mode 0600; plus how a path is shown and quoted in a hint.
 * Never reads or changes a file that is already there.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { CliError } from "./errors.ts";

/** Refuses a non-empty `target` unless `force`, and a path that runs through a file. */
export function assertUsableDirectory(target: string, shown: string, force: boolean): void {
  let entries: string[];
  try {
    entries = readdirSync(target);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT") return;
    if (code === "ENOTDIR")
      throw new CliError("not_empty", `${shown} is not a directory (or a folder above it is a file)`);
    throw err;
  }
  if (entries.length > 0 && !force) {
    throw new CliError(
      "not_empty",
      `${shown} is not empty (pass --force to add the project beside what is there; no file is ever overwritten)`,
    );
  }
}

/** Refuses before writing anything when one of `files` exists in `target`; else writes them all. */
export function writeProjectFiles(
  target: string,
  shown: string,
  files: ReadonlyMap<string, string>,
  privateFiles: ReadonlySet<string> = new Set(),
): void {
  const existing = [...files.keys()].filter((path) => exists(join(target, path)));
  if (existing.length > 0) {
    throw new CliError("would_overwrite", `refusing to overwrite ${existing.join(", ")} in ${shown}`);
  }
  for (const [path, text] of files) {
    const file = join(target, path);
    mkdirSync(dirname(file), { recursive: true });
    const secret = privateFiles.has(path);
    writeFileSync(file, text, { flag: "wx", ...(secret ? { mode: 0o600 } : {}) });
    if (secret) chmodSync(file, 0o600); // whatever the umask
  }
}

export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** `dir` relative to `cwd` when it lies below it (`.` for `cwd` itself), else absolute. */
export function displayPath(cwd: string, dir: string): string {
  const rel = relative(cwd, dir);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? dir : rel;
}

/** A path as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellQuote(path: string): string {
  return /^[\w./@:+-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}
