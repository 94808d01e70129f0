#!/usr/bin/env node
// Bin shim: the bundled tool is built by `pnpm build` (scripts/build.ts) into dist/.
import '../dist/reproduce.mjs'
