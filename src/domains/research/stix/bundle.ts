/**
 * research_export_stix as a pure function: plain records in, one STIX 2.1 bundle out. No clock,
 * no randomness: ids are UUIDv5 of Cairn ids, times are the records' own, inputs are sorted
 * before use and objects after, so the same sources give a byte-identical `serializeBundle`.
 */
import { canonicalJson, hashJson } from '../../../kernel/canonical-json.ts';
import { addEvidence, type ExportedEvidence } from './evidence.ts';
import { addFinding } from './findings.ts';
import { stixId } from './ids.ts';
import { addObject, domainObject, type ExportContext } from './objects.ts';
import { DEFAULT_TLP, isTlpLevel, TLP_MARKING_IDS, tlpMarking } from './tlp.ts';
import type { StixBundle, StixExportInput, StixObject } from './types.ts';
import { earliest, invalidExport, latest, modifiedTime, stixTime } from './values.ts';

/** SPEC Limits: "STIX export: up to 20 sources". */
export const MAX_STIX_SOURCES = 20;

/**
 * The bundle for one export. Refuses (DomainError VALIDATION_FAILED, `details.detail` in the
 * HTTPValidationError shape, loc `body.evidence_ids`) when `sources` is empty or names more than
 * 20 distinct ids, and on a timestamp without a zone or a malformed SHA-256.
 */
export function buildStixBundle(input: StixExportInput): StixBundle {
  const sources = [...new Set(input.sources)].sort();
  if (sources.length === 0) {
    throw invalidExport('evidence_ids', 'evidence_ids must name at least one source', 'too_short');
  }
  if (sources.length > MAX_STIX_SOURCES) {
    throw invalidExport(
      'evidence_ids',
      `A STIX export takes up to ${MAX_STIX_SOURCES} sources; ${sources.length} were given`,
      'too_big',
    );
  }
  const tlp = input.campaign?.tlp ?? DEFAULT_TLP;
  if (!isTlpLevel(tlp)) throw invalidExport('tlp', `${String(tlp)} is not a TLP 2.0 level`, 'enum');

  const identityId = stixId('identity', input.owner.ownerId);
  const ctx: ExportContext = {
    createdBy: identityId,
    marking: TLP_MARKING_IDS[tlp],
    // The same campaign and sources are the same report: a re-export updates it downstream.
    reportId: stixId('report', canonicalJson({ campaign: input.campaign?.campaignId ?? null, sources })),
  };

  const set = new Map<string, StixObject>();
  const ownerCreated = stixTime(input.owner.createdAt, 'owner.createdAt');
  addObject(
    set,
    domainObject(
      ctx,
      'identity',
      input.owner.ownerId,
      {
        created: ownerCreated,
        modified: modifiedTime(ownerCreated, input.owner.updatedAt, 'owner.updatedAt'),
      },
      { name: input.owner.name, identity_class: input.owner.identityClass },
    ),
  );

  const exported = new Map<string, ExportedEvidence>();
  for (const ev of byKey(input.evidence, (e) => e.evidenceId)) {
    exported.set(ev.evidenceId, addEvidence(set, ctx, ev, `evidence.${ev.evidenceId}`));
  }
  for (const finding of byKey(input.findings, (f) => f.findingId)) {
    const sorted = { ...finding, reviews: byKey(finding.reviews, (r) => r.reviewId) };
    addFinding(set, ctx, sorted, exported, `findings.${finding.findingId}`);
  }

  addObject(set, report(ctx, input, sources, [...set.values()]));
  const objects = [tlpMarking(tlp), ...order([...set.values()], identityId)];
  // The bundle id names this exact content: same sources and records, same id.
  return { type: 'bundle', id: stixId('bundle', hashJson(objects)), objects };
}

/** The canonical JSON of a bundle (keys sorted at every level): byte-identical for equal bundles. */
export function serializeBundle(bundle: StixBundle): string {
  return canonicalJson(bundle);
}

function report(
  ctx: ExportContext,
  input: StixExportInput,
  sources: string[],
  objects: StixObject[],
): StixObject {
  // The report spans its contents' times; it has no record of its own to take them from.
  const dated = objects.filter((o) => typeof o.created === 'string');
  const created = earliest(dated.map((o) => o.created as string));
  const modified = latest(dated.map((o) => o.modified as string));
  const campaign = input.campaign;
  return {
    ...domainObject(
      ctx,
      'report',
      '',
      { created, modified },
      {
        name: campaign ? `Cairn research export: ${campaign.name}` : 'Cairn research export',
        description: `STIX 2.1 export of ${sources.length} source(s): ${sources.join(', ')}`,
        published: modified,
        object_refs: [
          TLP_MARKING_IDS[input.campaign?.tlp ?? DEFAULT_TLP],
          ...objects.map((o) => o.id),
        ].sort(),
        ...(campaign && {
          external_references: [{ source_name: 'cairn', external_id: campaign.campaignId }],
        }),
      },
    ),
    id: ctx.reportId,
  };
}

/** Records sorted by their Cairn id, first of each id kept: input order never shows in the output. */
function byKey<T>(records: readonly T[], key: (record: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const record of [...records].sort((a, b) => cmp(key(a), key(b)))) {
    if (!seen.has(key(record))) seen.set(key(record), record);
  }
  return [...seen.values()];
}

/** The identity first (readers resolve created_by_ref as they go), then everything by id. */
function order(objects: StixObject[], identityId: string): StixObject[] {
  const rest = objects.filter((o) => o.id !== identityId).sort((a, b) => cmp(a.id, b.id));
  return [...objects.filter((o) => o.id === identityId), ...rest];
}

// Code-unit order, not locale order: the same on every machine.
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
