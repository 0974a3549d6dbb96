/**
 * One piece of evidence -> one `observed-data` (what Cairn saw, when) referring to the SCO that
 * pins its content: an `artifact` (URL + SHA-256) for a web read, a `file` (name + SHA-256) for an
 * owner import, plus a `software` SCO per SBOM component. The external reference carrying the
 * source URL and body hash is also what a finding's note repeats for each source it cites.
 */
import {
  addObject,
  domainObject,
  type ExportContext,
  observable,
  purlReference,
  software,
} from './objects.ts';
import type { StixEvidenceInput, StixObject } from './types.ts';
import { sha256Hex, stixTime, webUrl } from './values.ts';

const KIND_LABEL = {
  WEB_READ: 'web-read',
  OWNER_IMPORT: 'owner-import',
  AGENT_SUBMITTED: 'agent-submitted',
  SBOM_IMPORT: 'sbom-import',
  RECEIVED_MAIL: 'received-mail',
} as const;

export interface ExportedEvidence {
  /** The observed-data id a finding's note refers to. */
  observedDataId: string;
  reference: Record<string, unknown>;
}

/** Source URL, SHA-256 and Cairn id of one piece of evidence, as a STIX external reference. */
export function evidenceReference(ev: StixEvidenceInput, loc: string): Record<string, unknown> {
  const url = webUrl(ev.url);
  return {
    source_name: 'cairn',
    external_id: ev.evidenceId,
    ...(ev.title?.trim() && { description: ev.title.trim() }),
    ...(url && { url }),
    hashes: { 'SHA-256': sha256Hex(ev.sha256, `${loc}.sha256`) },
  };
}

export function addEvidence(
  set: Map<string, StixObject>,
  ctx: ExportContext,
  ev: StixEvidenceInput,
  loc: string,
): ExportedEvidence {
  const time = stixTime(ev.observedAt, `${loc}.observedAt`);
  const reference = evidenceReference(ev, loc);
  const hashes = reference.hashes;
  const url = ev.kind === 'WEB_READ' ? webUrl(ev.url) : null;
  // A web read's body is what the URL served; an import is the uploaded bytes, whatever its
  // declared source, so only a web read becomes an artifact fetchable at its URL.
  const content = url
    ? observable(ctx, 'artifact', ev.evidenceId, { url, hashes })
    : observable(ctx, 'file', ev.evidenceId, { name: ev.title?.trim() || ev.evidenceId, hashes });
  addObject(set, content);

  const refs = [content.id];
  const purls = new Set<string>();
  for (const component of ev.components ?? []) {
    const sco = software(ctx, component);
    if (!sco) continue;
    addObject(set, sco);
    refs.push(sco.id);
    if (component.purl) purls.add(component.purl);
  }

  const labels: string[] = [KIND_LABEL[ev.kind]];
  // SPEC: owner imports stay UNVERIFIED for authenticity, and mail's sender is unauthenticated;
  // the label keeps that visible downstream.
  if (ev.kind !== 'WEB_READ') labels.push('unverified');
  const observed = domainObject(
    ctx,
    'observed-data',
    ev.evidenceId,
    { created: time, modified: time },
    {
      first_observed: time,
      last_observed: time,
      number_observed: 1,
      object_refs: [...new Set(refs)].sort(),
      labels,
      external_references: [reference, ...[...purls].sort().map(purlReference)],
    },
  );
  addObject(set, observed);
  return { observedDataId: observed.id, reference };
}
