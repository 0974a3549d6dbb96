/** The parsing layer's public surface: the pool, the contract types, and the text tools for direct use. */
export { inferImportFormat } from './import/infer.ts';
export { IMPORT_LIMITS } from './import/limits.ts';
export * from './import/types.ts';
export { BodyFieldRefused, PrototypeKeyRefused } from './json-body.ts';
export { MAIL_PARSE_LIMITS } from './mail/limits.ts';
export * from './mail/types.ts';
export { ParserPool, type ParserPoolOptions } from './pool.ts';
export { locateQuote } from './quote-locate.ts';
export { DIFF_MAX_CHARS, diffTexts } from './text-diff.ts';
export * from './types.ts';
