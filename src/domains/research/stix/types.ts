/**
 * What the STIX 2.1 export is built from: plain records the research area has already read and
 * authorised (no database here), and the bundle it yields. Timestamps are ISO 8601 strings as
 * stored (any sub-second precision); the builder rounds them down to milliseconds.
 */

/** TLP 2.0 levels; a campaign picks one, TLP:AMBER when it has none (SPEC issue 16 item 5). */
export type TlpLevel = 'TLP:CLEAR' | 'TLP:GREEN' | 'TLP:AMBER' | 'TLP:AMBER+STRICT' | 'TLP:RED';

export type ReviewVerdict = 'SUPPORTED' | 'CONTESTED' | 'INSUFFICIENT_EVIDENCE';

/** The campaign's owner: the STIX `identity` every created object names as `created_by_ref`. */
export interface StixOwnerInput {
  ownerId: string;
  name: string;
  identityClass: 'individual' | 'organization';
  createdAt: string;
  updatedAt?: string | null;
}

export interface StixCampaignInput {
  campaignId: string;
  name: string;
  /** Omitted or null: TLP:AMBER. */
  tlp?: TlpLevel | null;
}

/** A software component as an SBOM import lists it (a subset of parsing's `SbomComponent`). */
export interface StixComponentInput {
  name: string;
  version?: string | null;
  vendor?: string | null;
  /** Kept outside the `software` object, which has no purl property in STIX 2.1 (see docs/research.md). */
  purl?: string | null;
}

export interface StixEvidenceInput {
  evidenceId: string;
  kind: 'WEB_READ' | 'OWNER_IMPORT' | 'AGENT_SUBMITTED' | 'SBOM_IMPORT' | 'RECEIVED_MAIL';
  /** canonical_url of a web read; the declared source_url of an import, if any. */
  url?: string | null;
  /** The body hash, `sha256:<hex>` as Cairn stores it, or the bare 64 hex digits. */
  sha256: string;
  /** retrieved_at of a web read, the import time of an import. */
  observedAt: string;
  title?: string | null;
  /** SBOM imports only. */
  components?: StixComponentInput[] | null;
}

/**
 * One entry of a finding's affected_versions. `text` is kept verbatim (and searched for CVE ids
 * and purls); the optional fields name the software when the finding recorded it structured.
 */
export interface StixAffectedVersionInput extends Partial<StixComponentInput> {
  text: string;
}

export interface StixReviewInput {
  reviewId: string;
  verdict: ReviewVerdict;
  rationale: string;
  /** The reviewing agent's display name, carried as the opinion's `authors`. */
  reviewerName?: string | null;
  createdAt: string;
  updatedAt?: string | null;
}

export interface StixFindingInput {
  findingId: string;
  claim: string;
  evidenceIds: string[];
  affectedVersions: StixAffectedVersionInput[];
  unknowns: string[];
  contradictions: string[];
  reviews: StixReviewInput[];
  createdAt: string;
  updatedAt?: string | null;
}

export interface StixExportInput {
  /** The evidence_ids the caller asked for (findings count too: a finding_id is an evidence_id). At most 20 distinct. */
  sources: string[];
  owner: StixOwnerInput;
  campaign?: StixCampaignInput | null;
  /** The evidence records to export: the sources and what the exported findings cite. */
  evidence: StixEvidenceInput[];
  findings: StixFindingInput[];
}

/** Any STIX object of the bundle; its other properties depend on `type`. */
export interface StixObject {
  type: string;
  id: string;
  [property: string]: unknown;
}

export interface StixBundle {
  type: 'bundle';
  id: string;
  objects: StixObject[];
}
