#!/usr/bin/env node
/**
 * The npm registry reachable here serves only this platform's builds of
 * packages such as workerd, esbuild and biome, so `npm install` leaves their
 * other-platform optional dependencies out of package-lock.json, and
 * `npm ci` then refuses the lockfile ("Missing: … from lock file").
 * This adds those entries back, marked optional with their os/cpu/libc, so
 * `npm ci` skips them on every platform they do not match.
 * Run after `npm install`: `node scripts/complete-lockfile.mjs`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const file = resolve(import.meta.dirname, "../package-lock.json");
const lock = JSON.parse(readFileSync(file, "utf8"));
const packages = lock.packages;
const OS = {
  darwin: "darwin",
  linux: "linux",
  win32: "win32",
  windows: "win32",
  android: "android",
  freebsd: "freebsd",
  openbsd: "openbsd",
  netbsd: "netbsd",
  sunos: "sunos",
  aix: "aix",
  openharmony: "openharmony",
};
const CPU = ["arm64", "x64", "ia32", "arm", "ppc64", "s390x", "riscv64", "loong64", "mips64el"];

let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = path === "" ? "" : `${path}/`;
    const version = String(range).replace(/^[\^~=]/, "");
    if (packages[`${base}node_modules/${name}`]) continue;
    const hoisted = packages[`node_modules/${name}`];
    if (hoisted && hoisted.version === version) continue;
    // A different version is hoisted (or nothing is): add it beside its parent.
    const at = hoisted ? `${base}node_modules/${name}` : `node_modules/${name}`;
    const parts = name.split("/").pop().split("-");
    const os = parts.map((p) => OS[p]).find(Boolean);
    const cpu =
      parts.includes("64") && !parts.some((p) => CPU.includes(p)) ? "x64" : CPU.find((c) => parts.includes(c));
    if (!os) continue; // not a platform build: leave it for npm to resolve
    const entry = { version, optional: true };
    if (meta.dev) entry.dev = true;
    entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    if (parts.includes("musl")) entry.libc = ["musl"];
    if (parts.includes("gnu")) entry.libc = ["glibc"];
    packages[at] = entry;
    added++;
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
