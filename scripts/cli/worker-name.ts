/**
 * Worker names as Cloudflare accepts them: lower-case letters, digits and dashes, no dash at
 * either end, at most 63 characters. Derives one from a directory name or a `--name`; never
 * returns an empty name (it throws instead).
 */
import { CliError } from "./errors.ts";

const MAX_LENGTH = 63;

/** `My Auth_Worker!` → `my-auth-worker`. */
export function sanitizeWorkerName(raw: string): string {
  const name = raw
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_LENGTH)
    .replace(/^-+|-+$/g, "");
  if (name === "") {
    throw new CliError("invalid_name", `cannot make a worker name of '${raw}': pass --name <worker-name>`);
  }
  return name;
}
