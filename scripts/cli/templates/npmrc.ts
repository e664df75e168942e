/**
 * The `.npmrc` of a project made on a Node older than 22.12: its `node` devDependency runs every
 * npm script on Node 24, but `npm install` itself runs on the machine's Node, so each tool that
 * wants Node 22+ would print an EBADENGINE warning that nobody can act on. Errors still print.
 */
export function renderNpmrc(): string {
  return `# npm scripts run Node 24 (the "node" devDependency: wrangler 4 needs Node >= 22.12), but
# \`npm install\` runs on this machine's older Node, so tools that want Node 22+ would each print an
# EBADENGINE warning you cannot act on. Errors still print; \`npm install --loglevel=warn\` shows all.
loglevel=error
`;
}
