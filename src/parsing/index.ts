/** The parsing layer's public surface: the pool, the contract types, and the text tools for direct use. */
export { inferImportFormat } from './import/infer.ts';
export * from './import/types.ts';
export { BodyFieldRefused, PrototypeKeyRefused } from './json-body.ts';
export * from './mail/types.ts';
export { ParserPool, type ParserPoolOptions } from './pool.ts';
export { locateQuote } from './quote-locate.ts';
export { diffTexts } from './text-diff.ts';
export * from './types.ts';
