/**
 * @module gatehouse-workers/html
 * HTML for workers: `HtmlTransformer` (chainable, streaming, on the runtime's HTMLRewriter),
 * `escapeHtml`, and the shared page look (`renderPage`, `renderPageHeader`, `PAGE_STYLES`).
 * Exported by name; nothing here imports the identity SDK, Hono or anything not HTML.
 */
export {
  type AssignmentFn,
  escapeHtml,
  HtmlTransformError,
  type HtmlTransformErrorCode,
  HtmlTransformer,
  PAGE_STYLES,
  type PageDocument,
  type PageHeader,
  type PageLink,
  type PagePerson,
  type PageSignOut,
  renderPage,
  renderPageHeader,
  type ScriptAttributes,
  type ScriptPosition,
} from "../html";
