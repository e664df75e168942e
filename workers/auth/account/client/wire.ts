/**
 * @module
 * How the account pages' browser script reads the live channel: `encodeMessage`
 * (durable-objects/user-sessions/messages.ts) writes superjson's `{ json, meta }`, and a
 * `LiveMessage` is plain JSON plus dates, so this applies the two annotations such a message can
 * carry (`Date`, `undefined`) exactly as `superjson.parse` does, without putting superjson (~10 kB
 * minified) into the script the worker serves. Anything else (another annotation, a forbidden
 * path) throws: it is not a message of ours, and the page ignores it. Browser code only.
 */
import type { LiveMessage } from "../../../../durable-objects/user-sessions/messages";

/** superjson's `meta.values`: per key, a subtree, or `[annotation, children?]` for an annotated value. */
type Annotations = Record<string, unknown> | [string, Record<string, unknown>?];

const FORBIDDEN_KEYS = ["__proto__", "prototype", "constructor"];

/** superjson's `parsePath`: keys joined by `.`, `\.` a dot inside a key (and `\\` a backslash from version 1). */
function parsePath(path: string, legacy: boolean): string[] {
  const segments: string[] = [];
  let segment = "";
  for (let i = 0; i < path.length; i++) {
    const char = path.charAt(i);
    if (!legacy && char === "\\") {
      const next = path.charAt(i + 1);
      if (next === "\\") {
        segment += "\\";
        i++;
        continue;
      }
      if (next !== ".") throw new Error("invalid path");
    }
    if (char === "\\" && path.charAt(i + 1) === ".") {
      segment += ".";
      i++;
    } else if (char === ".") {
      segments.push(segment);
      segment = "";
    } else {
      segment += char;
    }
  }
  segments.push(segment);
  return segments;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || value === Object.prototype) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

function revive(value: unknown, annotation: string): unknown {
  if (annotation === "Date") return new Date(value as string);
  if (annotation === "undefined") return undefined;
  throw new Error(`not a live message: ${annotation}`);
}

/** superjson's `setDeep` on JSON (plain objects and arrays). */
function setDeep(root: unknown, path: string[], annotation: string): unknown {
  if (path.some((key) => FORBIDDEN_KEYS.includes(key))) throw new Error(`${path.join(".")} is not allowed`);
  if (path.length === 0) return revive(root, annotation);
  let parent = root;
  for (const key of path.slice(0, -1)) {
    if (Array.isArray(parent)) parent = parent[+key];
    else if (isPlainObject(parent)) parent = parent[key];
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent[+last] = revive(parent[+last], annotation);
  else if (isPlainObject(parent)) parent[last] = revive(parent[last], annotation);
  return root;
}

/** `decodeMessage` for the browser: what `superjson.parse` returns for any message `encodeMessage` writes. */
export function decodeLiveMessage(text: string): LiveMessage {
  const { json, meta } = JSON.parse(text) as { json: unknown; meta?: { values?: Annotations; v?: number } };
  const legacy = (meta?.v ?? 0) < 1;
  let result = json;
  const walk = (tree: unknown, origin: string[]): void => {
    if (!tree) return;
    const children = (node: unknown) => {
      for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
        walk(child, [...origin, ...parsePath(key, legacy)]);
      }
    };
    if (!Array.isArray(tree)) {
      children(tree);
      return;
    }
    const [annotation, nested] = tree as [string, Record<string, unknown>?];
    if (nested) children(nested);
    result = setDeep(result, origin, annotation);
  };
  if (meta?.values) walk(meta.values, []);
  return result as LiveMessage;
}
