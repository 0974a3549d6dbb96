import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { windowOf } from '../../reading/index.ts';
import { isText } from '../package/index.ts';
import { type DraftRow, draftFileList, readDraftFile, validateDraft } from './drafts.ts';

/** A draft as its author or owner sees it (the tool and the owner API alike). */

/** Its terms, files (with sizes and hashes) and whether it is valid now, with every problem. */
export async function presentDraft(ex: Executor, draft: DraftRow) {
  const problems = await validateDraft(ex, draft);
  return {
    draft_id: draft.id,
    skill_id: draft.skillId,
    name: draft.name,
    description: draft.description,
    tags: draft.tags,
    revision: draft.revision,
    author_id: draft.authorAgentId,
    created_at: draft.createdAt.toISOString(),
    updated_at: draft.updatedAt.toISOString(),
    files: await draftFileList(ex, draft.id),
    valid: problems.length === 0,
    problems,
  };
}

/** One character window of a draft's text file; NOT_FOUND, or SKILL_FILE_BINARY for bytes. */
export async function draftWindow(
  ex: Executor,
  draft: DraftRow,
  input: { path: string; offset?: number | undefined; maxChars?: number | undefined },
) {
  const bytes = await readDraftFile(ex, draft.id, input.path);
  if (!bytes) {
    throw new DomainError('NOT_FOUND', `Draft ${draft.id} has no file ${input.path}.`, {
      draft_id: draft.id,
      path: input.path,
    });
  }
  if (!isText(new Uint8Array(bytes))) {
    throw new DomainError(
      'SKILL_FILE_BINARY',
      `${input.path} of draft ${draft.id} is not UTF-8 text, so it has no character windows.`,
      { draft_id: draft.id, path: input.path, size: bytes.length },
      { next: 'Its size and SHA-256 are in files; replace it with skill_draft_file_put (content_base64).' },
    );
  }
  const w = windowOf(bytes.toString('utf8'), { offset: input.offset, maxChars: input.maxChars });
  return {
    path: input.path,
    text: w.text,
    range: {
      offset: w.offset,
      next_offset: w.next_offset,
      total_chars: w.total_chars,
      max_chars: w.max_chars,
    },
  };
}
