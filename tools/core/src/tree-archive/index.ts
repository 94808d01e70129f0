// The shared tree API: extract-tree builds tree.tar and tree-manifest.json with it; every
// later step reads the tree through it (one file, the manifest, or a materialized work tree).

export { buildTreeArchive, sortByPathBytes, streamTreeArchive, treeManifestFor, type BuildOptions, type CheckedListing, type StreamedTreeArchive, type StreamArchiveOptions, type TreeArchive } from './build.ts'
export { CatFileBatchParser, type BatchSink, type ExpectedObject } from './cat-file-batch.ts'
export { materializeTree, openTreeReader, readTreeFile, readTreeManifest, verifyTreeArchive, TREE_MANIFEST, TREE_TAR, type MaterializedTree, type ExtractedTree } from './read.ts'
export { BLOCK, isEndOfArchive, padded, parseTarEntry, paxPathRecord, tarLayout, writeEntryHeaders, type FileMode, type LongPath, type ParsedTarEntry, type TarEntryInput, type TarLayout } from './tar-format.ts'
