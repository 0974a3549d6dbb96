/**
 * The common shape of what the export creates: every SDO/SRO names the owner's identity as
 * `created_by_ref` and carries the campaign's TLP marking; SCOs carry the marking too (STIX 2.1
 * gives SCOs no created_by_ref, created or modified, so they have none).
 */
import { canonicalJson } from '../../../kernel/canonical-json.ts';
import { stixId } from './ids.ts';
import type { StixComponentInput, StixObject } from './types.ts';
import { parsePurl } from './values.ts';

export interface ExportContext {
  /** The owner's identity id. */
  createdBy: string;
  /** The chosen TLP 2.0 marking-definition id. */
  marking: string;
  /** The export's report id: what a note with nothing else to point at refers to. */
  reportId: string;
}

/** A STIX Domain or Relationship Object with the export's common properties. */
export function domainObject(
  ctx: ExportContext,
  type: string,
  key: string,
  times: { created: string; modified: string },
  properties: Record<string, unknown>,
): StixObject {
  return {
    type,
    spec_version: '2.1',
    id: stixId(type, key),
    created_by_ref: ctx.createdBy,
    created: times.created,
    modified: times.modified,
    object_marking_refs: [ctx.marking],
    ...properties,
  };
}

/** A STIX Cyber-observable Object with the export's marking. */
export function observable(
  ctx: ExportContext,
  type: string,
  key: string,
  properties: Record<string, unknown>,
): StixObject {
  return {
    type,
    spec_version: '2.1',
    id: stixId(type, key),
    object_marking_refs: [ctx.marking],
    ...properties,
  };
}

/**
 * A `software` SCO. Its id comes from the purl when there is one (the package's identity: an SBOM
 * and a finding naming one package make one object), else from its own properties (STIX's rule
 * for SCOs). The purl itself is not a property: STIX 2.1 software has none.
 */
export function software(ctx: ExportContext, component: StixComponentInput): StixObject | null {
  const fromPurl = component.purl ? parsePurl(component.purl) : null;
  const name = component.name?.trim() || fromPurl?.name;
  if (!name) return null;
  const version = component.version?.trim() || fromPurl?.version || undefined;
  const vendor = component.vendor?.trim() || undefined;
  const key = component.purl ? `purl:${component.purl}` : canonicalJson({ name, vendor, version });
  return observable(ctx, 'software', key, { name, ...(vendor && { vendor }), ...(version && { version }) });
}

/** An external reference to a purl, where the object naming the software can carry it. */
export function purlReference(purl: string) {
  return { source_name: 'purl', external_id: purl };
}

/**
 * Merges an object into the export's set by id. The same vulnerability, software or relationship
 * may come from several findings: one object, spanning the earliest created and latest modified;
 * an SCO gains the properties only a later mention gives (a vendor). Inputs are sorted before
 * they get here, so which mention comes first is fixed.
 */
export function addObject(set: Map<string, StixObject>, object: StixObject): void {
  const existing = set.get(object.id);
  if (!existing) {
    set.set(object.id, object);
    return;
  }
  for (const [key, value] of Object.entries(object)) {
    if (!(key in existing) && typeof existing.created !== 'string') existing[key] = value;
  }
  if (typeof existing.created === 'string' && typeof object.created === 'string') {
    if (object.created < existing.created) existing.created = object.created;
    if ((object.modified as string) > (existing.modified as string)) existing.modified = object.modified;
  }
}
