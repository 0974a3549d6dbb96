/** The parsing layer's public surface: the pool and the contract types. */
export { ParserPool, type ParserPoolOptions } from './pool.ts';
export * from './types.ts';
