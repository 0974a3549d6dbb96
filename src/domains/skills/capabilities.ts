import { READING_LIMITS } from '../reading/index.ts';
import { SCOPES } from './context.ts';
import { SKILL_LIMITS } from './limits.ts';
import { PACKAGE_LIMITS } from './package/index.ts';

/** GET /v1/skills/capabilities: what this deployment allows, answered whether skills are on or off. */
export function describeCapabilities(enabled: boolean) {
  return {
    enabled,
    ...(enabled ? {} : { why: 'CAIRN_SKILLS=off on this deployment; the operator can turn skills on.' }),
    format: {
      name: 'Agent Skills',
      root_file: 'SKILL.md',
      frontmatter: ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'],
      folders: ['scripts/', 'references/', 'assets/'],
      imports: ['application/zip (as data_base64)'],
      download: 'application/zip, deterministic (same version, same bytes and package_sha256)',
    },
    contexts: SCOPES,
    deliveries: ['RECOMMENDED', 'REQUIRED', 'READ_BEFORE_COMPLETION'],
    usage_outcomes: ['APPLIED', 'NOT_NEEDED', 'INCOMPATIBLE', 'DECLINED'],
    limits: {
      file_bytes: PACKAGE_LIMITS.fileBytes,
      package_bytes: PACKAGE_LIMITS.packageBytes,
      files: PACKAGE_LIMITS.files,
      import_bytes: PACKAGE_LIMITS.importBytes,
      path_chars: SKILL_LIMITS.list.pathChars,
      window_chars: READING_LIMITS.window,
      bytes_window: SKILL_LIMITS.fileBytesWindow,
      list: {
        min: SKILL_LIMITS.list.minLimit,
        max: SKILL_LIMITS.list.maxLimit,
        default: SKILL_LIMITS.list.defaultLimit,
      },
    },
  };
}
