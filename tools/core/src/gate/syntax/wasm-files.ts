// The WebAssembly files the structure gates load, and the npm package file each comes from.
// Kept apart from parse.ts so scripts/build.ts can copy them without loading the runtime.

export const WASM_PACKAGES = {
  'tree-sitter.wasm': 'web-tree-sitter/tree-sitter.wasm',
  'tree-sitter-go.wasm': 'tree-sitter-go/tree-sitter-go.wasm',
  'tree-sitter-javascript.wasm': 'tree-sitter-javascript/tree-sitter-javascript.wasm',
} as const
export type WasmFile = keyof typeof WASM_PACKAGES
/** The .wasm files a bundle that parses needs beside it (scripts/build.ts copies them). */
export const WASM_FILES = Object.keys(WASM_PACKAGES) as WasmFile[]
