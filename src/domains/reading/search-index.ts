import { and, ne, type SQL, sql } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import { cutPage } from '../../kernel/paging.ts';
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
      // repo.visibleTo: the caller's own reads, or the sharing rule asked of the row (a probe per match).
      const visible = visibleTo(caller.agent.id, (id) => this.coverage.sharedEvidence(id));
      // Every match is ranked and sorted first (the inner query, fenced by offset 0); visibility
      // is then tested in rank order until the page is full, so a page costs a few visibility
      // tests when most matches are visible, not one per match. The inner query is named
      // "evidence" and has its columns, as the predicates of the campaigns area expect.
      branches.push(sql`(select 'evidence' as source, "evidence".id, "evidence".rank, null::text as campaign_id,
          null::text as task_id, null::text as label, null::text as content, null::timestamptz as created_at
        from (select ${evidence.id} as id, ${evidence.agentId} as agent_id, ${rank} as rank
          from ${evidence}
          where ${and(match.matches(EVIDENCE_VECTOR), kindFilter)}${keyset(rank, sql`${evidence.id}`)}
          order by rank desc, id collate "C" offset 0) as "evidence"
        where ${and(visible, reach.evidenceIn ?? undefined)}
        order by "evidence".rank desc, "evidence".id collate "C" limit ${take})`);
    }
    const messages = kinds.includes('message') ? reach.messages(match) : null;
    if (messages) {
      branches.push(sql`(select 'message' as source, m.id, m.rank, m.campaign_id, m.task_id, m.type as label,
          m.content, m.created_at
        from (${messages}) m where true${keyset(sql`m.rank`, sql`m.id`)}
        order by m.rank desc, m.id collate "C" limit ${take})`);
    }
    if (branches.length === 0) return { results: [], next_cursor: null };

    // The page's evidence rows are read in full only now, for their particulars and snippets.
    const result = (await ex.execute(sql`select
        case when h.source = 'message' then 'message' when e.kind = 'finding' then 'finding' else 'evidence' end as kind,
        h.id, coalesce(${req.campaignId}::text, h.campaign_id, e.campaign_id) as campaign_id,
        coalesce(h.task_id, e.task_id) as task_id, e.title, coalesce(h.label, e.provenance) as label,
        e.trust_label, h.rank, coalesce(h.created_at, e.created_at) as created_at,
        left(case when h.source = 'message'
          then ts_headline(${CONFIG}, h.content, ${query}, ${HEADLINE_OPTIONS})
          else ${evidenceSnippet(query)} end, ${SNIPPET_CHARS}) as snippet
      from (${sql.join(branches, sql` union all `)}) h
        left join ${evidence} e on h.source = 'evidence' and e.id = h.id
      order by h.rank desc, h.id collate "C" limit ${take}`)) as unknown as { rows: Row[] };

    const page = cutPage(result.rows, req.limit, (last) =>
      signCursor(this.secret, binding, { r: Number(last.rank), id: last.id }),
    );
    return {
      results: page.rows.map(presentHit),
      next_cursor: page.next,
      ...(page.rows.length === 0 && !after ? await emptyNote(ex, req.q) : {}),
    };
  }
}

/**
 * The snippet of an evidence text: drawn from its first SNIPPET_SCAN_CHARS characters, or, when
 * no match is marked there, from the whole indexed prefix (ts_headline reparses what it is
 * given, so a long text costs more only when the match lies deep in it).
 */
function evidenceSnippet(query: SQL): SQL {
  const first = sql`ts_headline(${CONFIG}, left(e.text, ${SNIPPET_SCAN_CHARS}), ${query}, ${HEADLINE_OPTIONS})`;
  // The first headline is computed once (offset 0), not copied into both places it is used.
  return sql`(select case when strpos(x.headline, '«') > 0 or length(e.text) <= ${SNIPPET_SCAN_CHARS}
        then x.headline
        else ts_headline(${CONFIG}, left(e.text, ${SEARCH_TEXT_CHARS}), ${query}, ${HEADLINE_OPTIONS}) end
      from (select ${first} as headline offset 0) x)`;
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
