import { and, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import {
  type ImportFileInput,
  type ImportService,
  importFileRequest,
  ONE_FILE_MESSAGE,
  presentImport,
  type ReadingService,
  sendsOneFile,
} from '../../reading/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { type Membership, requireMembership } from '../core/member.ts';
import { taskForMember } from '../core/task-access.ts';
import { findCampaign } from '../membership/members-repo.ts';
import { campaignEvidence } from '../tables.ts';
import { inCampaign } from './source-checks.ts';

/** evidence_submit: shares a stored read the caller may see with the campaign (and a task). */
export async function submitEvidence(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  input: {
    campaignId?: string | undefined;
    evidenceId: string;
    taskId?: string | undefined;
    note?: string | undefined;
  },
  now: Date,
) {
  const member = input.taskId
    ? (await taskForMember(ex, caller, input.taskId, { forChange: true, campaignId: input.campaignId }))
        .member
    : await requireMembership(ex, caller, input.campaignId, { forChange: true });
  const evidence = await reading.evidenceMeta(caller, input.evidenceId, ex);
  // Only one's own reads travel into a campaign: what another campaign shared stays there.
  if (evidence.agentId !== caller.agent.id && !(await inCampaign(ex, member.campaign.id, evidence.id))) {
    throw new DomainError('NOT_FOUND', `Evidence ${evidence.id} is not one of your reads.`, {
      evidence_id: evidence.id,
    });
  }
  return shareEvidence(ex, member, evidence, input, now);
}

/**
 * Shares evidence with the member's campaign (and a task): once per campaign, with an
 * EVIDENCE_SUBMITTED event the first time; `already_shared` says whether it was already there.
 */
export async function shareEvidence(
  ex: Executor,
  member: Membership,
  evidence: { id: string; provenance: string },
  input: { taskId?: string | undefined; note?: string | undefined },
  now: Date,
) {
  const inserted = await ex
    .insert(campaignEvidence)
    .values({
      campaignId: member.campaign.id,
      evidenceId: evidence.id,
      agentId: member.agentId,
      authorRole: member.role,
      taskId: input.taskId ?? null,
      note: input.note ?? null,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ evidenceId: campaignEvidence.evidenceId });
  if (inserted.length > 0) {
    await appendEvent(
      ex,
      member.campaign.id,
      {
        kind: 'EVIDENCE_SUBMITTED',
        actor: { agentId: member.agentId, role: member.role },
        taskId: input.taskId ?? null,
        evidenceIds: [evidence.id],
        payload: { evidence_id: evidence.id, note: input.note ?? null, provenance: evidence.provenance },
      },
      now,
    );
  }
  return {
    evidence_id: evidence.id,
    campaign_id: member.campaign.id,
    task_id: input.taskId ?? null,
    already_shared: inserted.length === 0,
    visibility: member.campaign.visibility,
  };
}

/** evidence_submit's file arguments (the HTTP import's), camelCase as the tool hands them over. */
const FILE_FIELDS = {
  dataBase64: 'data_base64',
  text: 'text',
  format: 'format',
  title: 'title',
  sourceDate: 'source_date',
  sourceUrl: 'source_url',
  authorized: 'authorized',
  ocr: 'ocr',
} as const satisfies Record<keyof ImportFileInput, string>;

export type SubmitInput = ImportFileInput & {
  campaignId?: string | undefined;
  evidenceId?: string | undefined;
  mailId?: string | undefined;
  taskId?: string | undefined;
  note?: string | undefined;
};

/**
 * Which of evidence_submit's three forms a call is: `evidence_id` shares a stored read, `mail_id`
 * turns a campaign mail into evidence, a file (`data_base64` or `text`, with its particulars) is
 * imported. Anything else is VALIDATION_FAILED naming the fields, in the shape the schema's own
 * refusals have.
 */
export function submitForm(input: SubmitInput): 'share' | 'import' | 'mail' {
  const given = (Object.keys(FILE_FIELDS) as Array<keyof typeof FILE_FIELDS>).filter(
    (k) => input[k] !== undefined,
  );
  const hasFile = input.dataBase64 !== undefined || input.text !== undefined;
  if (input.mailId !== undefined) {
    const others = [
      ...(input.evidenceId !== undefined ? ['evidence_id'] : []),
      ...given.map((k) => FILE_FIELDS[k]),
    ];
    if (others.length === 0) return 'mail';
    throw invalid(
      `mail_id turns a campaign mail into evidence; ${others.join(', ')} cannot come with it. Send one form at a time.`,
      others.map((f) => ({ field: f, msg: 'not allowed together with mail_id', type: 'conflict' })),
    );
  }
  if (input.evidenceId !== undefined) {
    if (given.length === 0) return 'share';
    const fields = given.map((k) => FILE_FIELDS[k]);
    throw invalid(
      `evidence_id shares evidence already stored; ${fields.join(', ')} ${fields.length === 1 ? 'belongs' : 'belong'} to importing a file (data_base64 or text). Send one or the other.`,
      fields.map((f) => ({ field: f, msg: 'not allowed together with evidence_id', type: 'conflict' })),
    );
  }
  if (!hasFile) {
    throw invalid(
      given.length > 0
        ? 'Importing a file needs the file: send it in data_base64 (any file) or text (a text file).'
        : 'Send evidence_id to share one of your reads, mail_id to turn a campaign mail into evidence, or data_base64 or text to import a file.',
      [
        ...(given.length > 0
          ? []
          : [{ field: 'evidence_id', msg: 'evidence_id or a file is required', type: 'missing' }]),
        { field: 'data_base64', msg: 'data_base64 or text is required to import a file', type: 'missing' },
      ],
    );
  }
  if (!sendsOneFile({ data_base64: input.dataBase64, text: input.text })) {
    throw invalid(`Both data_base64 and text were sent: ${ONE_FILE_MESSAGE}.`, [
      { field: 'data_base64', msg: ONE_FILE_MESSAGE, type: 'conflict' },
      { field: 'text', msg: ONE_FILE_MESSAGE, type: 'conflict' },
    ]);
  }
  return 'import';
}

function invalid(message: string, problems: Array<{ field: string; msg: string; type: string }>) {
  return new DomainError(
    'VALIDATION_FAILED',
    message,
    { detail: problems.map((p) => ({ loc: ['arguments', p.field], msg: p.msg, type: p.type })) },
    {
      next: 'Call evidence_submit with evidence_id alone (share a read), mail_id alone (a campaign mail), or data_base64 or text and neither id (import a file).',
      alternatives: [{ tool: 'evidence_submit', action: 'Call again with the arguments corrected.' }],
    },
  );
}

/**
 * evidence_submit with a file: the agent's import (provenance AGENT_SUBMITTED, label UNVERIFIED),
 * into a campaign it is an active member of and, with task_id, for a task it can see; shared
 * under the campaign's visibility mode with an EVIDENCE_IMPORTED event (recordImport). It runs in
 * the call's transaction, so it commits with the idempotency record or not at all.
 */
export async function importEvidence(
  ex: Executor,
  imports: ImportService,
  caller: Caller,
  input: SubmitInput,
) {
  const { evidence, document } = await imports.importFile(
    {
      importer: { caller },
      ...importFileRequest(input),
      campaignId: input.campaignId,
      taskId: input.taskId,
    },
    ex,
  );
  const campaign = evidence.campaignId ? await findCampaign(ex, evidence.campaignId) : null;
  if (!campaign) throw new Error(`the import ${evidence.id} of an agent joined no campaign`);
  if (input.note !== undefined) {
    await ex
      .update(campaignEvidence)
      .set({ note: input.note })
      .where(and(eq(campaignEvidence.campaignId, campaign.id), eq(campaignEvidence.evidenceId, evidence.id)));
  }
  return {
    evidence_id: evidence.id,
    campaign_id: campaign.id,
    task_id: evidence.taskId,
    already_shared: false,
    visibility: campaign.visibility,
    imported: presentImport(evidence, document),
    next_steps: [
      {
        tool: 'evidence_view',
        action: 'Read its text, from the first page.',
        arguments: { evidence_id: evidence.id, page: 1 },
      },
      {
        tool: 'evidence_locate',
        action: 'Find the quote you will cite in it (task_complete looks quotations up there).',
        arguments: { evidence_id: evidence.id, quote: '…' },
      },
    ],
  };
}
