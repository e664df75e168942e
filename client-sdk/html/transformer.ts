/**
 * @module
 * `HtmlTransformer`: the spec's chainable HTML transformer on the runtime's
 * streaming `HTMLRewriter`. It must never buffer a body: every operation is an
 * HTMLRewriter handler, so the first bytes leave before the last ones arrive,
 * and everything it writes into an attribute goes through `escapeAttribute`.
 */
import { HtmlTransformError } from "./errors";
import { decodeAttribute, escapeAttribute } from "./escape";

/** Where `injectScript` appends its tag. */
export type ScriptPosition = "head" | "body";

/** Extra attributes of an injected `<script>`: `data-*` values, and `defer` / `async`. */
export interface ScriptAttributes {
  /** `data-<name>` attributes (names: lowercase letters, digits and `-`); values are escaped. */
  data?: Readonly<Record<string, string>>;
  defer?: boolean;
  async?: boolean;
}

/** Picks an A/B variant key for a request. */
export type AssignmentFn = (request: Request) => string;

type Operation =
  | { kind: "script"; markup: string; position: ScriptPosition }
  | { kind: "bodyStart"; markup: string }
  | { kind: "meta"; name: string; content: string }
  | { kind: "inner"; selector: string; html: string }
  | { kind: "remove"; selector: string }
  | { kind: "abTest"; selector: string; variants: ReadonlyMap<string, string>; assign: AssignmentFn };

const HTML = { html: true } as const;

/**
 * @example
 * ```ts
 * const page = new HtmlTransformer()
 *   .injectScript("/analytics.js")
 *   .setMetaTag("description", "Fast pages")
 *   .removeElement(".ad")
 *   .abTest("#hero", { a: "<h1>Hi</h1>", b: "<h1>Hello</h1>" }, (req) => bucketOf(req));
 * return page.transform(await fetch(request), request);
 * ```
 */
export class HtmlTransformer {
  readonly #ops: Operation[] = [];
  #usesAbTest = false;

  /**
   * Appends `<script src="…"></script>` at the end of `<head>` (default) or
   * `<body>`. `src` is escaped, so it cannot break out of the attribute. The
   * tag goes into the first such element only; a page without `</head>` gets
   * head scripts just before `<body>`, which browsers place in the head.
   */
  injectScript(src: string, position: ScriptPosition = "head", attributes: ScriptAttributes = {}): this {
    if (position !== "head" && position !== "body") {
      throw new TypeError(`HtmlTransformer.injectScript: position must be "head" or "body" (got ${String(position)})`);
    }
    let extra = "";
    for (const [name, value] of Object.entries(attributes.data ?? {})) {
      if (!/^[a-z][a-z0-9-]{0,63}$/.test(name)) {
        throw new TypeError(
          `HtmlTransformer.injectScript: data attribute names are lowercase letters, digits and - (got ${JSON.stringify(name)})`,
        );
      }
      extra += ` data-${name}="${escapeAttribute(String(value))}"`;
    }
    if (attributes.defer) extra += " defer";
    if (attributes.async) extra += " async";
    this.#ops.push({ kind: "script", markup: `<script src="${escapeAttribute(src)}"${extra}></script>`, position });
    return this;
  }

  /**
   * Inserts `html` at the start of the first `<body>` (a banner every page must show). `html` is
   * TRUSTED markup inserted as-is: never pass user input (escape it with `escapeHtml` first).
   */
  prependToBody(html: string): this {
    this.#ops.push({ kind: "bodyStart", markup: html });
    return this;
  }

  /**
   * Sets the `content` of every `<meta name="…">` of that name (compared
   * ASCII case-insensitively, as HTML does); when `</head>` (or, without one,
   * `<body>`) arrives and none was seen, inserts one there. One pass, no
   * duplicate. `name` and `content` are escaped. A later call for the same
   * name wins.
   */
  setMetaTag(name: string, content: string): this {
    this.#ops.push({ kind: "meta", name, content });
    return this;
  }

  /**
   * Replaces the inner content of every element matching `selector` with
   * `html`. `html` is TRUSTED markup inserted as-is: never pass user input.
   */
  replaceElement(selector: string, html: string): this {
    this.#ops.push({ kind: "inner", selector: checkSelector(selector), html });
    return this;
  }

  /** Removes every element matching `selector`, with its content. */
  removeElement(selector: string): this {
    this.#ops.push({ kind: "remove", selector: checkSelector(selector) });
    return this;
  }

  /**
   * Replaces the inner content of every element matching `selector` with
   * `variants[assignmentFn(request)]`. `assignmentFn` runs once per
   * `transform`. A key with no variant leaves the elements as they were.
   * Variants are TRUSTED markup inserted as-is: never pass user input.
   * `variants` is copied now; later changes to the object have no effect.
   */
  abTest(selector: string, variants: Record<string, string>, assignmentFn: AssignmentFn): this {
    this.#ops.push({
      kind: "abTest",
      selector: checkSelector(selector),
      variants: new Map(Object.entries(variants)),
      assign: assignmentFn,
    });
    this.#usesAbTest = true;
    return this;
  }

  /**
   * Applies every operation, in registration order, to the streamed body.
   * Non-HTML responses (and bodiless ones) are returned as they are. Status
   * and headers are kept, except that `Content-Length` is dropped and a
   * strong `ETag` is weakened, since the bytes change. `request` is required
   * once `abTest` was used (a `TypeError` otherwise) and ignored before.
   */
  transform(response: Response, request?: Request): Response {
    if (this.#usesAbTest && !request) {
      throw new TypeError(
        "HtmlTransformer.transform(response, request): abTest() was used, so the request is required to pick a variant",
      );
    }
    if (response.body === null || !isHtml(response.headers.get("content-type"))) return response;
    const rewriter = this.#build(request);
    if (!rewriter) return response;
    const out = rewriter.transform(response);
    out.headers.delete("content-length");
    const etag = out.headers.get("etag");
    if (etag && !etag.startsWith("W/")) out.headers.set("etag", `W/${etag}`);
    return out;
  }

  /** A fresh rewriter with per-response state, or null when nothing would change. */
  #build(request: Request | undefined): HTMLRewriter | null {
    const rewriter = new HTMLRewriter();
    let handlers = 0;
    const headTail: string[] = [];
    const bodyTail: string[] = [];
    const bodyHead: string[] = [];
    const metas = new Map<string, { name: string; content: string }>();
    const seenMetas = new Set<string>();
    let tailRegistered = false;
    let headDone = false;
    let bodyDone = false;
    let headSeen = false;

    const headMarkup = () => {
      headDone = true;
      let markup = "";
      for (const [key, meta] of metas) {
        if (!seenMetas.has(key)) {
          markup += `<meta name="${escapeAttribute(meta.name)}" content="${escapeAttribute(meta.content)}">`;
        }
      }
      return markup + headTail.join("");
    };

    // One head and one body handler serve every script and meta operation:
    // HTMLRewriter keeps a single end-tag handler per element.
    const registerTails = () => {
      if (tailRegistered) return;
      tailRegistered = true;
      handlers++;
      on(rewriter, "head", {
        element(el) {
          if (headSeen) return;
          headSeen = true;
          el.onEndTag((end) => {
            if (!headDone) insert(end, headMarkup());
          });
        },
      });
      on(rewriter, "body", {
        element(el) {
          // Without `</head>` the head content goes just before `<body>`.
          if (!headDone) insert(el, headMarkup());
          if (!bodyDone && (bodyTail.length > 0 || bodyHead.length > 0)) {
            bodyDone = true;
            if (bodyHead.length > 0) el.prepend(bodyHead.join(""), HTML);
            if (bodyTail.length > 0) el.append(bodyTail.join(""), HTML);
          }
        },
      });
    };

    for (const op of this.#ops) {
      switch (op.kind) {
        case "script":
          (op.position === "head" ? headTail : bodyTail).push(op.markup);
          registerTails();
          break;
        case "bodyStart":
          bodyHead.push(op.markup);
          registerTails();
          break;
        case "meta":
          if (metas.size === 0) {
            on(rewriter, "meta[name]", {
              element(el) {
                if (el.removed) return;
                const key = decodeAttribute(el.getAttribute("name") ?? "")
                  .trim()
                  .toLowerCase();
                const meta = metas.get(key);
                if (!meta) return;
                seenMetas.add(key);
                // setAttribute writes the value raw except for `"`; passing it
                // fully escaped (no `"` left) makes the output exactly ours.
                el.setAttribute("content", escapeAttribute(meta.content));
              },
            });
          }
          metas.set(op.name.trim().toLowerCase(), { name: op.name, content: op.content });
          registerTails();
          break;
        case "inner":
          handlers++;
          on(rewriter, op.selector, innerContent(op.html));
          break;
        case "remove":
          handlers++;
          on(rewriter, op.selector, REMOVE);
          break;
        case "abTest": {
          const key = op.assign(request!);
          const variant = typeof key === "string" ? op.variants.get(key) : undefined;
          if (variant === undefined) break;
          handlers++;
          on(rewriter, op.selector, innerContent(variant));
          break;
        }
      }
    }
    return handlers > 0 ? rewriter : null;
  }
}

const REMOVE: HTMLRewriterElementContentHandlers = {
  element(el) {
    el.remove();
  },
};

function innerContent(html: string): HTMLRewriterElementContentHandlers {
  return {
    element(el) {
      el.setInnerContent(html, HTML);
    },
  };
}

function insert(at: Element | EndTag, markup: string): void {
  if (markup) at.before(markup, HTML);
}

/** True for `text/html` with any parameters (`; charset=utf-8`). */
function isHtml(contentType: string | null): boolean {
  if (!contentType) return false;
  const semicolon = contentType.indexOf(";");
  const essence = semicolon === -1 ? contentType : contentType.slice(0, semicolon);
  return essence.trim().toLowerCase() === "text/html";
}

/** `rewriter.on`, with a parse failure reported as an error naming the selector. */
function on(rewriter: HTMLRewriter, selector: string, handlers: HTMLRewriterElementContentHandlers): void {
  try {
    rewriter.on(selector, handlers);
  } catch (cause) {
    throw new HtmlTransformError("invalid_selector", {
      message: `HtmlTransformer: invalid selector ${JSON.stringify(selector)}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    });
  }
}

/** Validates `selector` at registration, where HTMLRewriter exists (always in workerd). */
function checkSelector(selector: string): string {
  if (typeof selector !== "string") {
    throw new HtmlTransformError("invalid_selector", { message: "HtmlTransformer: selector must be a string" });
  }
  if (typeof HTMLRewriter === "function") on(new HTMLRewriter(), selector, {});
  return selector;
}
