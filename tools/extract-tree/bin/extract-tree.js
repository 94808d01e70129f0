#!/usr/bin/env node
// Bin shim: the tool is bundled by `pnpm build` (scripts/build.ts) into dist/; a step runs
// its cached CommonJS bundle, --help its ESM entry (tools/core/src/launch.ts).
import { launch } from '../dist/launch.mjs'
await launch(new URL('../dist/', import.meta.url), 'extract-tree')
