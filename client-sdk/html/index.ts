/**
 * @module
 * The HTML transformation concern of the client SDK: `HtmlTransformer` on the
 * runtime's streaming HTMLRewriter, and its error class; the shared page look (theme.ts). Exported by name;
 * nothing here may import the identity SDK, Hono or anything not HTML-related.
 */
export { HtmlTransformError, type HtmlTransformErrorCode } from "./errors";
export { escapeHtml } from "./escape";
export {
  PAGE_STYLES,
  type PageDocument,
  type PageHeader,
  type PageLink,
  type PagePerson,
  type PageSignOut,
  renderPage,
  renderPageHeader,
} from "./theme";
export { type AssignmentFn, HtmlTransformer, type ScriptAttributes, type ScriptPosition } from "./transformer";
