/**
 * One finding -> a `note` (the claim) and, beside it, what the claim rests on or leaves open:
 * a note per affected-version entry, unknown and contradiction (labelled, referring to the
 * finding's note: nothing is dropped), an `opinion` per review, a `vulnerability` per CVE id the
 * claim or affected versions name, `software` SCOs they name, and `related-to` relationships
 * from each such vulnerability to each such software.
 */
import { findingConfidence, OPINION_OF } from './confidence.ts';
import type { ExportedEvidence } from './evidence.ts';
import { stixId, textKey } from './ids.ts';
import { addObject, domainObject, type ExportContext, purlReference, software } from './objects.ts';
import type { StixAffectedVersionInput, StixFindingInput, StixObject } from './types.ts';
import { abstractOf, cveIds, modifiedTime, parsePurl, purlsIn, stixTime } from './values.ts';

type Times = { created: string; modified: string };

export function addFinding(
  set: Map<string, StixObject>,
  ctx: ExportContext,
  finding: StixFindingInput,
  evidence: ReadonlyMap<string, ExportedEvidence>,
  loc: string,
): void {
  const created = stixTime(finding.createdAt, `${loc}.createdAt`);
  const times = { created, modified: modifiedTime(created, finding.updatedAt, `${loc}.updatedAt`) };
  const noteId = stixId('note', finding.findingId);

  const cves = cveIds([finding.claim, ...finding.affectedVersions.map((a) => a.text)].join('\n'));
  const vulnerabilities = cves.map((cve) => vulnerability(ctx, cve, times));
  const softwareIds = new Set<string>();
  for (const entry of finding.affectedVersions) {
    const named = affectedSoftware(ctx, entry);
    for (const sco of named) {
      addObject(set, sco);
      softwareIds.add(sco.id);
    }
    addObject(set, affectedNote(ctx, finding.findingId, noteId, entry, named, times));
  }
  for (const vuln of vulnerabilities) {
    addObject(set, vuln);
    for (const sw of softwareIds) {
      addObject(
        set,
        domainObject(ctx, 'relationship', `related-to:${vuln.id}:${sw}`, times, {
          relationship_type: 'related-to',
          source_ref: vuln.id,
          target_ref: sw,
        }),
      );
    }
  }

  // What the note cites: the sources present in the export (others stay as external references),
  // then the vulnerabilities and software the claim is about.
  const cited = [...new Set(finding.evidenceIds)].sort();
  const refs = new Set<string>([...vulnerabilities.map((v) => v.id), ...softwareIds]);
  const references: Record<string, unknown>[] = [{ source_name: 'cairn', external_id: finding.findingId }];
  for (const evidenceId of cited) {
    const exported = evidence.get(evidenceId);
    if (exported) refs.add(exported.observedDataId);
    references.push(exported?.reference ?? { source_name: 'cairn', external_id: evidenceId });
  }
  const confidence = findingConfidence(finding.reviews.map((r) => r.verdict));
  const abstract = abstractOf(finding.claim);
  addObject(
    set,
    domainObject(ctx, 'note', finding.findingId, times, {
      ...(abstract && { abstract }),
      content: finding.claim,
      object_refs: refs.size > 0 ? [...refs].sort() : [ctx.reportId],
      labels: ['finding'],
      ...(confidence !== undefined && { confidence }),
      external_references: references,
    }),
  );

  const sideNotes = [
    ...finding.unknowns.map((text) => ['unknown', text] as const),
    ...finding.contradictions.map((text) => ['contradiction', text] as const),
  ];
  for (const [label, text] of sideNotes) {
    addObject(
      set,
      domainObject(ctx, 'note', `${finding.findingId}:${label}:${textKey(text)}`, times, {
        abstract: `${label === 'unknown' ? 'Unknown' : 'Contradiction'} in finding ${finding.findingId}`,
        content: text,
        object_refs: [noteId],
        labels: [label],
        external_references: [{ source_name: 'cairn', external_id: finding.findingId }],
      }),
    );
  }

  for (const [i, review] of finding.reviews.entries()) {
    const reviewCreated = stixTime(review.createdAt, `${loc}.reviews.${i}.createdAt`);
    const reviewTimes = {
      created: reviewCreated,
      modified: modifiedTime(reviewCreated, review.updatedAt, `${loc}.reviews.${i}.updatedAt`),
    };
    addObject(
      set,
      domainObject(ctx, 'opinion', review.reviewId, reviewTimes, {
        opinion: OPINION_OF[review.verdict],
        explanation: review.rationale,
        ...(review.reviewerName?.trim() && { authors: [review.reviewerName.trim()] }),
        object_refs: [noteId],
        external_references: [{ source_name: 'cairn', external_id: review.reviewId }],
      }),
    );
  }
}

function vulnerability(ctx: ExportContext, cve: string, times: Times): StixObject {
  return domainObject(ctx, 'vulnerability', cve, times, {
    name: cve,
    external_references: [
      { source_name: 'cve', external_id: cve, url: `https://www.cve.org/CVERecord?id=${cve}` },
    ],
  });
}

/** The software an affected-version entry names: its structured fields, else the purls in its text. */
function affectedSoftware(ctx: ExportContext, entry: StixAffectedVersionInput): StixObject[] {
  if (entry.name?.trim() || entry.purl) {
    const sco = software(ctx, { ...entry, name: entry.name ?? '' });
    return sco ? [sco] : [];
  }
  return purlsIn(entry.text)
    .filter((purl) => parsePurl(purl))
    .map((purl) => software(ctx, { name: '', purl }))
    .filter((sco): sco is StixObject => sco !== null);
}

function affectedNote(
  ctx: ExportContext,
  findingId: string,
  noteId: string,
  entry: StixAffectedVersionInput,
  named: StixObject[],
  times: Times,
): StixObject {
  const purls = new Set([...(entry.purl ? [entry.purl] : []), ...purlsIn(entry.text)]);
  const vulns = cveIds(entry.text).map((cve) => stixId('vulnerability', cve));
  const content = entry.text || [entry.name, entry.version].filter(Boolean).join(' ');
  const key = textKey(`${content}\n${entry.name ?? ''}\n${entry.version ?? ''}\n${entry.purl ?? ''}`);
  return domainObject(ctx, 'note', `${findingId}:affected:${key}`, times, {
    abstract: `Affected version in finding ${findingId}`,
    content,
    object_refs: [...new Set([noteId, ...named.map((s) => s.id), ...vulns])].sort(),
    labels: ['affected-version'],
    external_references: [
      { source_name: 'cairn', external_id: findingId },
      ...[...purls].sort().map(purlReference),
    ],
  });
}
