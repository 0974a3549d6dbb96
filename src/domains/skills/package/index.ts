// The skill package format (open Agent Skills): pure checks and zip conversion, no I/O.
export { parseFrontmatter } from './frontmatter.ts';
export { checkPath } from './paths.ts';
export { isText } from './text.ts';
export { PACKAGE_LIMITS, type PackageFile, type Problem } from './types.ts';
export { readMeta, type SkillMeta, validatePackage } from './validate.ts';
export { readZip } from './zip-read.ts';
export { buildZip } from './zip-write.ts';
