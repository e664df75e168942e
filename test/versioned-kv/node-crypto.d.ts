// The one node:crypto function the tests use as an independent SHA-256
// (available under nodejs_compat; the worker tsconfig has no @types/node).
declare module "node:crypto" {
  interface Hash {
    update(data: string, encoding: "utf8"): Hash;
    digest(encoding: "hex"): string;
  }
  export function createHash(algorithm: "sha256"): Hash;
}
