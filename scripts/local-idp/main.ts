#!/usr/bin/env node
/**
 * CLI of the local identity provider inside this repository: `node scripts/local-idp/main.ts`, the
 * same as an adopter's `npx gatehouse-workers dev-idp` (scripts/cli/dev-idp.ts: flags, the
 * LOCAL_IDP_* variables, where it listens and the IDENTITY_* lines a worker needs).
 */
import { runCli } from "../cli/cli.ts";
import { processContext } from "../cli/context.ts";

process.exitCode = await runCli(["dev-idp", ...process.argv.slice(2)], processContext());
