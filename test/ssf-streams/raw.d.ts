// Files the tests read as text through Vite's `?raw` suffix (README's blocks, the wrangler config).
declare module "*?raw" {
  const text: string;
  export default text;
}
