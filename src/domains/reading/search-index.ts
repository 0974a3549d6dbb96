import { and, ne, type SQL, sql } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import type { Database, Executor } from '../../storage/database.ts';
import type { Caller } from '../identity/index.ts';
import { visibleTo } from './repo.ts';
import { evidence } from './tables.ts';
import type { ReadCoverage, TextMatch } from './types.ts';

/**
 * Full-text search over everything an agent may see (evidence_search; docs/research.md, "Full-text
 * search"): its own reads and imports, evidence and findings its campaigns share with it, and
 * the campaign messages it may read. Visibility is part of the one SQL statement, so the page is
 * cut after filtering; ranked by ts_rank_cd, then by id, which the cursor continues from.
 */

/** The one text search configuration of every search vector and query (docs/research.md says why). */
export const SEARCH_CONFIG = 'english';
/** Characters of an evidence text the search vector covers (migration 0015): below the 1 MB tsvector limit. */
export const SEARCH_TEXT_CHARS = 100_000;
/** Characters a snippet is first drawn from; a text whose match lies further in is looked at up to SEARCH_TEXT_CHARS. */
const SNIPPET_SCAN_CHARS = 20_000;
/** A snippet's longest form, in characters. */
export const SNIPPET_CHARS = 500;
export const SEARCH_QUERY_CHARS = 500;
export const SEARCH_KINDS = ['evidence', 'finding', 'message'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

const CONFIG = sql.raw(`'${SEARCH_CONFIG}'::regconfig`);
const EVIDENCE_VECTOR = sql.raw('"evidence"."search_vector"');
// «…» mark the matched words; at most two fragments of 12-30 words, joined by " … ".
const HEADLINE_OPTIONS = sql.raw(
  `'StartSel=«, StopSel=», MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "'`,
);

export interface SearchRequest {
  q: string;
  campaignId: string | null;
  kinds: readonly SearchKind[];
  limit: number;
  cursor?: string | undefined;
}

export interface SearchHit {
  kind: SearchKind;
  id: string;
  campaign_id: string | null;
  task_id: string | null;
  title: string | null;
  snippet: string;
  rank: number;
  created_at: string;
  /** Evidence and findings: where the text came from and how far it is trusted. */
  provenance?: string;
  trust_label?: string;
  /** Messages: NOTE, QUESTION, PROPOSAL, … */
  message_type?: string;
  next: { tool: string; arguments: Record<string, unknown> };
}

interface Row {
  kind: SearchKind;
  id: string;
  campaign_id: string | null;
  task_id: string | null;
  title: string | null;
  label: string | null;
  trust_label: string | null;
  rank: number | string;
  created_at: Date | string;
  snippet: string | null;
}

interface Position {
  r: number;
  id: string;
}

export class EvidenceSearch {
  constructor(
    private readonly database: Database,
    private readonly secret: string,
    private readonly coverage: ReadCoverage,
  ) {}

  async search(caller: Caller, req: SearchRequest, ex: Executor = this.database.db) {
    const kinds = SEARCH_KINDS.filter((k) => req.kinds.includes(k));
    const binding = JSON.stringify(['evidence_search', caller.agent.id, req.campaignId, kinds, req.q]);
    const after = req.cursor ? positionOf(openCursor(this.secret, binding, req.cursor)) : null;
    // Membership is checked (and a named campaign refused) before anything is searched.
    const reach = await this.coverage.searchReach(ex, caller, req.campaignId);
    const query = sql`websearch_to_tsquery(${CONFIG}, ${req.q})`;
    const match: TextMatch = {
      matches: (vector) => sql`${vector} @@ ${query}`,
      // Normalised by 1 + log(length), so a long text does not win by length alone.
      rank: (vector) => sql`ts_rank_cd(${vector}, ${query}, 1)`,
    };
    const keyset = (rank: SQL, id: SQL) =>
      after
        ? sql` and (${rank} < ${after.r}::real or (${rank} = ${after.r}::real and ${id} collate "C" > ${after.id}))`
        : sql``;
    const take = req.limit + 1;
    const branches: SQL[] = [];

    const evidenceKinds = kinds.filter((k) => k !== 'message');
    if (evidenceKinds.length > 0) {
      const rank = match.rank(EVIDENCE_VECTOR);
      const kindFilter =
        evidenceKinds.length === 2
          ? undefined
          : evidenceKinds[0] === 'finding'
            ? sql`${evidence.kind} = 'finding'`
            : ne(evidence.kind, 'finding');
      const where = and(
        match.matches(EVIDENCE_VECTOR),
        visibleTo(caller.agent.id, (id) => this.coverage.sharedEvidence(id)),
        reach.evidenceIn ?? undefined,
        kindFilter,
      );
      branches.push(sql`(select case when ${evidence.kind} = 'finding' then 'finding' else 'evidence' end as kind,
          ${evidence.id} as id, ${req.campaignId}::text as scope, ${evidence.campaignId} as campaign_id,
          ${evidence.taskId} as task_id, ${evidence.title} as title, ${evidence.provenance} as label,
          ${evidence.trustLabel} as trust_label, null::text as content, ${rank} as rank,
          ${evidence.createdAt} as created_at
        from ${evidence} where ${where}${keyset(rank, sql`${evidence.id}`)}
        order by rank desc, id collate "C" limit ${take})`);
    }
    const messages = kinds.includes('message') ? reach.messages(match) : null;
    if (messages) {
      branches.push(sql`(select 'message' as kind, m.id, null::text as scope, m.campaign_id, m.task_id,
          null::text as title, m.type as label, null::text as trust_label, m.content, m.rank, m.created_at
        from (${messages}) m where true${keyset(sql`m.rank`, sql`m.id`)}
        order by m.rank desc, m.id collate "C" limit ${take})`);
    }
    if (branches.length === 0) return { results: [], next_cursor: null };

    const result = (await ex.execute(sql`select h.kind, h.id, coalesce(h.scope, h.campaign_id) as campaign_id,
        h.task_id, h.title, h.label, h.trust_label, h.rank, h.created_at,
        left(case when h.kind = 'message'
          then ts_headline(${CONFIG}, h.content, ${query}, ${HEADLINE_OPTIONS})
          else ${evidenceSnippet(sql`h.id`, query)} end, ${SNIPPET_CHARS}) as snippet
      from (${sql.join(branches, sql` union all `)}) h
      order by h.rank desc, h.id collate "C" limit ${take}`)) as unknown as { rows: Row[] };

    const rows = result.rows;
    const page = rows.slice(0, req.limit);
    const last = page.at(-1);
    const more = rows.length > req.limit && last !== undefined;
    return {
      results: page.map(presentHit),
      next_cursor: more ? signCursor(this.secret, binding, { r: Number(last.rank), id: last.id }) : null,
      ...(page.length === 0 && !after ? await emptyNote(ex, req.q) : {}),
    };
  }
}

/**
 * The snippet of an evidence text: drawn from its first SNIPPET_SCAN_CHARS characters, or, when
 * no match is marked there, from the whole indexed prefix (ts_headline reparses what it is
 * given, so a long text costs more only when the match lies deep in it).
 */
function evidenceSnippet(id: SQL, query: SQL): SQL {
  return sql`(select case when strpos(x.headline, '«') > 0 or length(e.text) <= ${SNIPPET_SCAN_CHARS}
        then x.headline
        else ts_headline(${CONFIG}, left(e.text, ${SEARCH_TEXT_CHARS}), ${query}, ${HEADLINE_OPTIONS}) end
      from ${evidence} e,
        lateral (select ts_headline(${CONFIG}, left(e.text, ${SNIPPET_SCAN_CHARS}), ${query}, ${HEADLINE_OPTIONS}) as headline) x
      where e.id = ${id})`;
}

/** Why nothing was found when the query itself has no searchable word (only stop words, say). */
async function emptyNote(ex: Executor, q: string): Promise<{ note?: string }> {
  const result = (await ex.execute(
    sql`select numnode(websearch_to_tsquery(${CONFIG}, ${q})) as nodes`,
  )) as unknown as { rows: Array<{ nodes: number | string }> };
  if (Number(result.rows[0]?.nodes ?? 0) > 0) return {};
  return {
    note: 'The query has no searchable words (common words such as "the" are not indexed); search for more specific terms.',
  };
}

function positionOf(value: Record<string, unknown>): Position {
  const { r, id } = value;
  if (typeof r !== 'number' || !Number.isFinite(r) || typeof id !== 'string' || id.length > 96) {
    throw new DomainError('CURSOR_INVALID', 'The cursor is not valid for this caller and query.', {});
  }
  return { r, id };
}

function presentHit(row: Row): SearchHit {
  const base = {
    kind: row.kind,
    id: row.id,
    campaign_id: row.campaign_id,
    task_id: row.task_id,
    title: row.title,
    snippet: row.snippet ?? '',
    rank: Number(row.rank),
    created_at: new Date(row.created_at).toISOString(),
  };
  if (row.kind === 'message') {
    return {
      ...base,
      message_type: row.label ?? '',
      next: {
        tool: 'context_read',
        arguments: { campaign_id: row.campaign_id, compact: false },
      },
    };
  }
  return {
    ...base,
    provenance: row.label ?? '',
    trust_label: row.trust_label ?? '',
    next:
      row.kind === 'finding' && row.campaign_id
        ? { tool: 'finding_get', arguments: { campaign_id: row.campaign_id, finding_id: row.id } }
        : { tool: 'evidence_view', arguments: { evidence_id: row.id } },
  };
}
