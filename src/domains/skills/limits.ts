import { CURSOR_MAX_CHARS } from '../../kernel/cursor.ts';
import type { PublishedLimit } from '../../kernel/limits.ts';

/**
 * The skills area's numbers: its lists' parameters (SPEC Skills), Cairn's own bounds on skill
 * packages (docs/skills.md) and skill_file_bytes_get's windows.
 */
export const SKILL_LIMITS = {
  list: {
    minLimit: 1,
    maxLimit: 100,
    defaultLimit: 25,
    qChars: 300,
    cursorChars: CURSOR_MAX_CHARS,
    compatibilityChars: 500,
    contextChars: 512,
    pathChars: 240,
    idChars: 96,
  },
  /** Cairn's own bounds on skill packages (docs/skills.md). */
  package: {
    fileBytes: 1_048_576,
    packageBytes: 8_388_608,
    files: 256,
    importBytes: 8_388_608,
    descriptionChars: 1_024,
    tags: 10,
    tagChars: 40,
    purposeChars: 500,
    noteChars: 2_000,
  },
  /** skill_file_bytes_get windows: base64 of the largest stays within the 60,000-character window. */
  fileBytesWindow: { min: 150, max: 45_000, default: 9_000 },
} as const;

const L = SKILL_LIMITS;

/** What `/v1/public/limits` publishes of skills (the area's `limits`). */
export const PUBLISHED_SKILL_LIMITS: PublishedLimit[] = [
  {
    area: 'Skills list parameters',
    limit:
      'limit 1-100 default 25; q <=300; cursor <=4096; compatibility <=500; context <=512; path <=240; lease_id and other_version_id <=96',
    values: {
      min_limit: L.list.minLimit,
      max_limit: L.list.maxLimit,
      default_limit: L.list.defaultLimit,
      q_chars: L.list.qChars,
      cursor_chars: L.list.cursorChars,
      compatibility_chars: L.list.compatibilityChars,
      context_chars: L.list.contextChars,
      path_chars: L.list.pathChars,
      id_chars: L.list.idChars,
    },
  },
  {
    area: 'Skill packages',
    limit: `files up to ${L.package.fileBytes} bytes; packages up to ${L.package.packageBytes} bytes and ${L.package.files} files; zip imports up to ${L.package.importBytes} bytes (decompressed bytes are counted, not the archive's claims); paths up to 240 characters`,
    values: {
      file_bytes: L.package.fileBytes,
      package_bytes: L.package.packageBytes,
      files: L.package.files,
      import_bytes: L.package.importBytes,
      tags: L.package.tags,
      tag_chars: L.package.tagChars,
    },
  },
  {
    area: 'skill_file_bytes_get window',
    limit: `max_bytes ${L.fileBytesWindow.min}-${L.fileBytesWindow.max}, default ${L.fileBytesWindow.default} (base64 in the answer)`,
    values: {
      min: L.fileBytesWindow.min,
      max: L.fileBytesWindow.max,
      default: L.fileBytesWindow.default,
    },
  },
];
