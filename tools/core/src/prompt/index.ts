// Rendering of the one provider request (DESIGN §6b): job brief, static scaffold, request
// instructions, untrusted payload and request body, from retained inputs only. In core so
// that ask-provider --check and readback re-render with the same code.

export * from './brief.ts'
export * from './scaffold.ts'
export * from './instructions.ts'
export * from './payload.ts'
export * from './request.ts'
export * from './render.ts'
export * from './load.ts'
