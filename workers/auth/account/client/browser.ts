/**
 * @module
 * The few browser APIs the live bundle uses, typed here because the project
 * compiles against @cloudflare/workers-types (no DOM lib). `fetch`,
 * `setTimeout` and `WebSocket` are typed by workers-types already. Browser
 * code only: never import this from the worker.
 */

export interface PageElement {
  readonly dataset: Record<string, string | undefined>;
  textContent: string | null;
  innerHTML: string;
  hidden: boolean;
  focus(): void;
  setAttribute(name: string, value: string): void;
  remove(): void;
  insertAdjacentHTML(position: "afterbegin" | "beforeend", html: string): void;
  querySelector(selector: string): PageElement | null;
  /** The browser's static NodeList (iterate with `Array.from`). */
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}

export interface BrowserGlobals {
  readonly document: {
    getElementById(id: string): PageElement | null;
    addEventListener(type: "submit", listener: () => void): void;
  };
  readonly location: { readonly host: string; readonly protocol: string; assign(url: string): void; reload(): void };
}

/** `window`, typed by the surface above. */
export function browser(): BrowserGlobals {
  return globalThis as unknown as BrowserGlobals;
}
