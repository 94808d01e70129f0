// The record kinds, their types and validators alone: what every tool's start path needs.

export * from './generated/records.ts'
