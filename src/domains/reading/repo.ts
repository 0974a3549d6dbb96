import { and, desc, eq, getTableColumns, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../storage/database.ts';
import { evidence, evidenceBlobs, policyReceipts } from './tables.ts';
import type { EvidenceMeta, EvidenceRecord } from './types.ts';

/** SQL of the reading area: evidence, its raw bytes, and policy receipts. */

export interface ReceiptRow {
  id: string;
  agentId: string;
  tool: string;
  /** SIMULATE: policy_explain's verdict on a URL not read (inputs.would_decide says which). */
  decision: 'ALLOW_ONCE' | 'DENY' | 'SIMULATE';
  reasonCode: string;
  rule: string;
  inputs: Record<string, unknown>;
  evidenceId: string | null;
  createdAt: Date;
}

export async function insertReceipt(ex: Executor, row: ReceiptRow): Promise<void> {
  await ex.insert(policyReceipts).values(row);
}

export async function findReceipt(ex: Executor, id: string): Promise<ReceiptRow | null> {
  const [row] = await ex.select().from(policyReceipts).where(eq(policyReceipts.id, id));
  return row ?? null;
}

/** Stores raw bytes once per hash; a second read of identical bytes reuses the first copy. */
export async function storeBlob(
  ex: Executor,
  hash: string,
  bytes: Buffer,
  now: Date,
  /** The database's kind: PostgreSQL takes the bytes as they are. */
  kind: Database['kind'] = 'pglite',
): Promise<void> {
  // Looked up first so a re-read of an unchanged page does not ship its bytes to the database
  // again; two first reads at once still meet in ON CONFLICT.
  const [known] = await ex
    .select({ hash: evidenceBlobs.hash })
    .from(evidenceBlobs)
    .where(eq(evidenceBlobs.hash, hash));
  if (known) return;
  // node-postgres sends a Buffer as a binary parameter, with no conversion on the event loop
  // (base64 of a 9 MB file took ~40 ms there, issue 40). PGlite's own bytea parameter encoding
  // costs ~20x more than base64 text decoded by the database (measured for a 500 KB body).
  await ex
    .insert(evidenceBlobs)
    .values({
      hash,
      bytes: kind === 'postgres' ? sql`${bytes}` : sql`decode(${bytes.toString('base64')}, 'base64')`,
      size: bytes.length,
      createdAt: now,
    })
    .onConflictDoNothing({ target: evidenceBlobs.hash });
}

export async function loadBlob(ex: Executor, hash: string): Promise<Buffer | null> {
  // As text for the same reason as storeBlob; Node's base64 decoder skips PostgreSQL's line breaks.
  const [row] = await ex
    .select({ base64: sql<string>`encode(${evidenceBlobs.bytes}, 'base64')` })
    .from(evidenceBlobs)
    .where(eq(evidenceBlobs.hash, hash));
  return row ? Buffer.from(row.base64, 'base64') : null;
}

export async function insertEvidence(ex: Executor, row: EvidenceRecord, now: Date): Promise<void> {
  await ex.insert(evidence).values({ ...row, createdAt: now });
}

/**
 * The visibility rule of evidence, in one place: an identity sees what it read itself, and what
 * its campaigns share with it (`shared`, a predicate the campaigns area supplies).
 */
export function visibleTo(agentId: string, shared: (agentId: string) => SQL | null): SQL {
  const sharing = shared(agentId);
  return (sharing ? or(eq(evidence.agentId, agentId), sharing) : eq(evidence.agentId, agentId)) as SQL;
}

export async function findVisibleEvidence(
  ex: Executor,
  visible: SQL,
  id: string,
): Promise<EvidenceRecord | null> {
  const [row] = await ex
    .select()
    .from(evidence)
    .where(and(eq(evidence.id, id), visible));
  return row ? toRecord(row) : null;
}

/** A visible evidence record without its text (which may run to millions of characters). */
export async function findVisibleEvidenceMeta(
  ex: Executor,
  visible: SQL,
  id: string,
): Promise<EvidenceMeta | null> {
  const { text: _text, createdAt: _createdAt, ...columns } = getTableColumns(evidence);
  const [row] = await ex
    .select({ ...columns, textLength: sql<number>`length(${evidence.text})::int` })
    .from(evidence)
    .where(and(eq(evidence.id, id), visible));
  return row ? { ...row, provenance: row.provenance as EvidenceMeta['provenance'] } : null;
}

/** The latest visible copy of a URL (requested or final), optionally read before (or at) a time. */
export async function findLatestCopy(
  ex: Executor,
  visible: SQL,
  url: string,
  before?: { at: Date; inclusive: boolean },
): Promise<EvidenceRecord | null> {
  const [row] = await ex
    .select()
    .from(evidence)
    .where(
      and(
        visible,
        or(eq(evidence.canonicalUrl, url), eq(evidence.requestedUrl, url)),
        before
          ? before.inclusive
            ? lte(evidence.retrievedAt, before.at)
            : lt(evidence.retrievedAt, before.at)
          : sql`true`,
      ),
    )
    .orderBy(desc(evidence.retrievedAt), desc(evidence.id))
    .limit(1);
  return row ? toRecord(row) : null;
}

/** Whether any stored copy of a URL is visible (what fetch_snapshot would find), without reading it. */
export async function hasCopy(ex: Executor, visible: SQL, url: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: evidence.id })
    .from(evidence)
    .where(and(visible, or(eq(evidence.canonicalUrl, url), eq(evidence.requestedUrl, url))))
    .limit(1);
  return row !== undefined;
}

function toRecord(row: typeof evidence.$inferSelect): EvidenceRecord {
  const { createdAt: _createdAt, ...rest } = row;
  return { ...rest, provenance: rest.provenance as EvidenceRecord['provenance'] };
}
