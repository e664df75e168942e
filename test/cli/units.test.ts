// The small pure pieces: the .dev.vars parser and check, worker names, the Node version rule, port
// parsing, the error lines and the search for the package's own package.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePort } from "../../scripts/cli/args.ts";
import { checkDevVars } from "../../scripts/cli/config-check.ts";
import { parseDevVars } from "../../scripts/cli/dev-vars.ts";
import { CliError, errorLines } from "../../scripts/cli/errors.ts";
import { needsNodePackage } from "../../scripts/cli/node-version.ts";
import { findOwnPackage } from "../../scripts/cli/package-info.ts";
import { sanitizeWorkerName } from "../../scripts/cli/worker-name.ts";
import { REPO_ROOT, tempDir } from "./helpers.ts";

describe("parseDevVars", () => {
  it("reads KEY=value lines, comments, quotes and export prefixes", () => {
    const text = [
      "# a comment",
      "",
      "A=plain",
      "B = spaced  ",
      'C="double # not a comment"',
      "D='single'",
      "export E=exported",
      "F=value # trailing comment",
      "G=a=b",
      "not a line",
      "A=later wins",
    ].join("\r\n");
    expect(parseDevVars(text)).toEqual({
      A: "later wins",
      B: "spaced",
      C: "double # not a comment",
      D: "single",
      E: "exported",
      F: "value",
      G: "a=b",
    });
  });
});

describe("checkDevVars", () => {
  const good = "Q9vR2xT7mK4pL8wZ3nB6cY1dF5gH0jSe";
  it("adds the security-events secret to the worker's rules, only when it is set", () => {
    expect(checkDevVars({ SESSION_SECRET: good })).toEqual({
      ok: false,
      problems: [{ variable: "AUTH_REDIRECT_URL", rule: "required" }],
    });
    expect(checkDevVars({ SESSION_SECRET: good, AUTH_REDIRECT_URL: "http://127.0.0.1:8787/cb" })).toEqual({ ok: true });
    expect(
      checkDevVars({
        SESSION_SECRET: "short",
        AUTH_REDIRECT_URL: "http://127.0.0.1:8787/cb",
        SECURITY_EVENTS_WEBHOOK_SECRET: "too-short-for-a-secret",
      }),
    ).toEqual({
      ok: false,
      problems: [
        { variable: "SESSION_SECRET", rule: "too_short" },
        { variable: "SECURITY_EVENTS_WEBHOOK_SECRET", rule: "too_short" },
      ],
    });
  });
});

describe("sanitizeWorkerName", () => {
  it.each([
    ["auth", "auth"],
    ["My Auth_Worker!", "my-auth-worker"],
    ["--édition--", "edition"],
    ["a".repeat(80), "a".repeat(63)],
    [`${"a".repeat(62)}-b`, "a".repeat(62)],
  ])("%s → %s", (raw, name) => {
    expect(sanitizeWorkerName(raw)).toBe(name);
  });

  it("refuses a name with nothing left", () => {
    expect(() => sanitizeWorkerName("!!!")).toThrow(CliError);
  });
});

describe("needsNodePackage", () => {
  it.each([
    ["20.19.0", true],
    ["22.11.0", true],
    ["22.12.0", false],
    ["v24.0.0", false],
    ["garbage", true],
  ])("%s → %s", (version, expected) => {
    expect(needsNodePackage(version)).toBe(expected);
  });
});

describe("parsePort", () => {
  it("accepts 1-65535, and 0 only when asked", () => {
    expect(parsePort("8787", "--port")).toBe(8787);
    expect(parsePort("0", "--port", true)).toBe(0);
    for (const bad of ["0", "65536", "-1", "8.5", "0x50", "", "80a"]) {
      expect(() => parsePort(bad, "--port")).toThrow(/--port must be a port number/);
    }
  });
});

describe("errorLines", () => {
  it("keeps a CliError's lines and reduces anything else to its first message line", () => {
    expect(errorLines(new CliError("invalid_config", ["one", "two"]))).toEqual(["one", "two"]);
    expect(errorLines(new Error("boom\nmore"))).toEqual(["unexpected error: boom"]);
    expect(errorLines("text")).toEqual(["unexpected error: text"]);
    expect(new CliError("usage", "x").exitCode).toBe(2);
    expect(new CliError("port_in_use", "x").exitCode).toBe(1);
  });
});

describe("findOwnPackage", () => {
  it("finds the repository's package.json from scripts/cli and from a nested folder", () => {
    expect(findOwnPackage().root).toBe(REPO_ROOT);
    expect(findOwnPackage(join(REPO_ROOT, "scripts", "cli", "templates")).root).toBe(REPO_ROOT);
  });

  it("skips a package.json of another name on the way up", () => {
    const root = tempDir();
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "gatehouse-workers", version: "9.8.7" }));
    mkdirSync(join(root, "dist", "nested"), { recursive: true });
    writeFileSync(join(root, "dist", "package.json"), JSON.stringify({ name: "something-else", version: "1.0.0" }));
    expect(findOwnPackage(join(root, "dist", "nested"))).toEqual({ root, version: "9.8.7" });
  });

  it("fails in one line when there is none", () => {
    expect(() => findOwnPackage(tempDir())).toThrow(/cannot find the package.json of gatehouse-workers/);
  });
});
