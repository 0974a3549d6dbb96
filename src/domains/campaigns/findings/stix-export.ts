import { and, inArray } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { EvidenceRecord } from '../../reading/index.ts';
import {
  buildStixBundle,
  type StixBundle,
  type StixComponentInput,
  type StixEvidenceInput,
  type StixFindingInput,
  serializeBundle,
  type TlpLevel,
} from '../../research/index.ts';
import { findingsVisible, type Viewer } from '../audience.ts';
import { type FindingRow, visibleReviews } from './finding-repo.ts';
import { findings } from './tables.ts';

/**
 * research_export_stix and `POST /v1/research/campaigns/{id}/stix`: the sources named (evidence
 * and findings, at most 20), the findings among them with the reviews the viewer may see, and the
 * evidence those findings cite that the viewer may see, handed to the pure STIX builder.
 * `evidenceOf` is the viewer's own rule for evidence (an agent's or the owner's) and answers null
 * for what the viewer may not see in this campaign.
 */
export async function exportStix(
  ex: Executor,
  viewer: Viewer,
  sourceIds: string[],
  evidenceOf: (id: string) => Promise<EvidenceRecord | null>,
): Promise<{ bundle: StixBundle; json: string }> {
  const ids = [...new Set(sourceIds)];
  const sources = await Promise.all(ids.map(async (id) => ({ id, record: await evidenceOf(id) })));
  const missing = sources.filter((s) => !s.record).map((s) => s.id);
  if (missing.length > 0) throw unseen(missing, viewer.campaign.id);
  const rows = await ex
    .select()
    .from(findings)
    .where(and(inArray(findings.id, ids), findingsVisible(viewer)));
  const reviews = await visibleReviews(
    ex,
    viewer,
    rows.map((r) => r.id),
  );
  // The evidence the findings cite comes along when the viewer may see it; the builder keeps
  // the id of anything else as a reference, never dropping the citation.
  const cited = [...new Set(rows.flatMap((r) => r.evidenceIds))].filter((id) => !ids.includes(id));
  const extra = (await Promise.all(cited.map((id) => evidenceOf(id)))).filter(
    (r): r is EvidenceRecord => r !== null,
  );
  const findingIds = new Set(rows.map((r) => r.id));
  const evidence = [...sources.map((s) => s.record!), ...extra]
    .filter((r) => !findingIds.has(r.id))
    .map(toStixEvidence);
  const campaign = viewer.campaign;
  const bundle = buildStixBundle({
    sources: ids,
    owner: {
      ownerId: campaign.ownerId,
      // The owner's email is theirs to share, not ours: the identity is named by its role.
      name: `Owner of the Cairn campaign "${campaign.title}"`,
      identityClass: 'individual',
      createdAt: campaign.createdAt.toISOString(),
    },
    campaign: { campaignId: campaign.id, name: campaign.title, tlp: campaign.tlp as TlpLevel },
    evidence,
    findings: rows.map((r) => toStixFinding(r, reviews.get(r.id) ?? [])),
  });
  return { bundle, json: serializeBundle(bundle) };
}

function toStixEvidence(e: EvidenceRecord): StixEvidenceInput {
  const sbom = e.importFormat === 'cyclonedx' || e.importFormat === 'spdx';
  const url = e.canonicalUrl.startsWith('urn:') ? null : e.canonicalUrl;
  return {
    evidenceId: e.id,
    kind: sbom
      ? 'SBOM_IMPORT'
      : e.provenance === 'SERVER_FETCH' || e.provenance === 'SNAPSHOT'
        ? 'WEB_READ'
        : e.provenance === 'AGENT_SUBMITTED' || e.provenance === 'RECEIVED_MAIL'
          ? e.provenance
          : 'OWNER_IMPORT',
    url,
    sha256: e.bodyHash,
    observedAt: e.retrievedAt.toISOString(),
    title: e.title,
    ...(sbom ? { components: componentsOf(e.text) } : {}),
  };
}

/**
 * The components of an SBOM import, read back from its evidence text: one `component:` line
 * each, as the SBOM reader writes them (`src/parsing/sbom/components.ts`: the name, a version,
 * then `key=value` fields). The purl is what identifies the package; name and version are what
 * precedes the first field, the version being its last word when that starts with a digit.
 */
function componentsOf(text: string): StixComponentInput[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('component: ')) return [];
    const body = line.slice('component: '.length);
    const fieldAt = body.search(/ [a-z0-9]+=/);
    const head = (fieldAt < 0 ? body : body.slice(0, fieldAt)).trim();
    const words = head.split(' ');
    const last = words.at(-1) ?? '';
    const hasVersion = words.length > 1 && /^v?\d/.test(last);
    const name = (hasVersion ? words.slice(0, -1).join(' ') : head) || '(unnamed)';
    const purl = / purl=(\S+)/.exec(body)?.[1] ?? null;
    return [{ name, version: hasVersion ? last : null, purl }];
  });
}

function toStixFinding(
  f: FindingRow,
  reviews: Array<{ id: string; verdict: string; rationale: string; createdAt: Date }>,
): StixFindingInput {
  return {
    findingId: f.id,
    claim: f.claim,
    evidenceIds: f.evidenceIds,
    affectedVersions: f.affectedVersions.map((text) => ({ text })),
    unknowns: f.unknowns,
    contradictions: f.contradictions,
    reviews: reviews.map((r) => ({
      reviewId: r.id,
      verdict: r.verdict as 'SUPPORTED' | 'CONTESTED' | 'INSUFFICIENT_EVIDENCE',
      rationale: r.rationale,
      createdAt: r.createdAt.toISOString(),
    })),
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}

function unseen(ids: string[], campaignId: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    `${ids.length === 1 ? `Evidence ${ids[0]} is` : `Evidence ${ids.join(', ')} are`} not visible to you in this campaign.`,
    { evidence_ids: ids, campaign_id: campaignId },
    {
      next: 'Export evidence and findings of this campaign you can see: finding_list and evidence_get show them.',
    },
  );
}
