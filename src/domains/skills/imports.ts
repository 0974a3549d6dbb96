import { eq } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { degradedOf } from '../../parsing/busy.ts';
import { ParseRefusal, ParserBusy } from '../../parsing/types.ts';
import type { Executor } from '../../storage/database.ts';
import type { Actor } from './access.ts';
import { bumpRevision, draftForEdit } from './drafts/drafts.ts';
import { recordSkillEvent } from './events.ts';
import { PACKAGE_LIMITS, type PackageFile, type Problem } from './package/index.ts';
import { descriptionOf } from './skill-md.ts';
import { skillDraftFiles } from './tables.ts';

/** What a zip reads as (package/zip-read.ts readZip). */
export interface ReadZip {
  files: PackageFile[];
  problems: Problem[];
}

/** Reads a zip off the event loop: the parser pool runs the skills area's own readZip. */
export interface ZipReader {
  runModule<T>(module: URL, name: string, input: unknown): Promise<T>;
}

const ZIP_JOB = new URL('./package/zip-read.ts', import.meta.url);

/**
 * Reads an imported zip in a parser thread, before any transaction opens (an 8 MB archive took
 * the event loop 1.2 s, issue 40). An archive over the import limit is not sent at all.
 */
export async function readImportedZip(reader: ZipReader, zip: Uint8Array): Promise<ReadZip> {
  if (zip.length > PACKAGE_LIMITS.importBytes) return { files: [], problems: [] };
  try {
    return await reader.runModule<ReadZip>(ZIP_JOB, 'readZip', zip);
  } catch (err) {
    // The pool's refusals: busy (retry), or the archive took longer than a job may, or its
    // thread failed on it (readZip itself answers problems, it does not throw).
    if (err instanceof ParserBusy) throw degradedOf(err);
    if (err instanceof ParseRefusal) {
      throw refused([
        err.reason === 'PARSE_TIMEOUT'
          ? { path: '', rule: 'ZIP_TOO_COMPLEX', message: 'The archive took too long to read.' }
          : { path: '', rule: 'ZIP_UNREADABLE', message: 'The archive could not be read.' },
      ]);
    }
    throw err;
  }
}

/**
 * A zip imported into a draft (POST /v1/skills/drafts/{id}/imports): it replaces the draft's
 * files only when the whole archive could be read safely (no traversal, no symlink, no bomb:
 * readZip counts the bytes it inflates, never the archive's claims). Otherwise nothing changes
 * and every problem is named.
 */
export async function importZip(
  ex: Executor,
  actor: Actor,
  input: { draftId: string; revision: number; zip: Uint8Array; read: ReadZip },
  now: Date,
): Promise<{ revision: number; files: number }> {
  const draft = await draftForEdit(ex, actor, input.draftId, input.revision);
  if (input.zip.length > PACKAGE_LIMITS.importBytes) {
    throw refused([
      {
        path: '',
        rule: 'ZIP_TOO_LARGE',
        message: `A zip may hold at most ${PACKAGE_LIMITS.importBytes} bytes.`,
      },
    ]);
  }
  const { files, problems } = input.read;
  if (problems.length > 0) throw refused(problems);
  if (files.length === 0)
    throw refused([{ path: '', rule: 'ZIP_EMPTY', message: 'The zip holds no files.' }]);
  await ex.delete(skillDraftFiles).where(eq(skillDraftFiles.draftId, draft.id));
  await ex.insert(skillDraftFiles).values(
    files.map((f) => ({
      draftId: draft.id,
      path: f.path,
      content: Buffer.from(f.bytes),
      size: f.bytes.length,
      updatedAt: now,
    })),
  );
  const skillMd = files.find((f) => f.path === 'SKILL.md');
  const description = skillMd ? descriptionOf(Buffer.from(skillMd.bytes).toString('utf8')) : '';
  const revision = await bumpRevision(ex, draft, now, { description });
  await recordSkillEvent(
    ex,
    {
      skillId: draft.skillId,
      kind: 'DRAFT_IMPORTED',
      actor,
      detail: { draft_id: draft.id, files: files.length },
    },
    now,
  );
  return { revision, files: files.length };
}

function refused(problems: Array<{ path: string; rule: string; message: string }>): DomainError {
  return new DomainError(
    'VALIDATION_FAILED',
    `The zip was not imported (${problems.length} problem(s)); the draft is unchanged.`,
    {
      problems,
      detail: problems.map((p) => ({
        loc: ['body', 'data_base64'],
        msg: `${p.path || 'zip'}: ${p.message}`,
        type: p.rule,
      })),
    },
    {
      next: 'Fix the archive (details.problems names each entry and rule) and import it again with the same revision.',
    },
  );
}
