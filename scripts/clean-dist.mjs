#!/usr/bin/env node
/** `npm run build` starts from an empty dist/: the two tsdown passes (JS, declarations) only add files. */
import { rmSync } from "node:fs";
import { resolve } from "node:path";

rmSync(resolve(import.meta.dirname, "../dist"), { recursive: true, force: true });
