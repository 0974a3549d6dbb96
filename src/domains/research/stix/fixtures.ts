/**
 * Realistic export inputs for the tests: an OpenSSL 3.0 review campaign with web reads, an owner
 * import, an SBOM import, and findings covering every verdict, no reviews, unknowns,
 * contradictions, CVE ids, structured and purl-only affected versions, and a cited source that is
 * not part of the export. Times come in the shapes the database hands over (microseconds, offsets).
 */
import type { StixExportInput, TlpLevel } from './types.ts';

const hex = (seed: string) => seed.repeat(64).slice(0, 64);

export const EVIDENCE_IDS = {
  advisory: 'evd_01HGW2N7EZJZ8XQ6V3M5RB1K2A',
  nvd: 'evd_01HGW2P0Q4T0C9B7Y2W1XK8D3B',
  bulletin: 'evd_01HGW2Q8R1S5K6D0M3N9PJ4F5C',
  sbom: 'evd_01HGW2RA3V7W2Y6Z8T1B0CQ6G7',
} as const;

export const FINDING_IDS = {
  overflow: 'evd_01HGW3A1B2C3D4E5F6G7H8J9K0',
  severity: 'evd_01HGW3B2C3D4E5F6G7H8J9K0M1',
  mitigation: 'evd_01HGW3C3D4E5F6G7H8J9K0M1N2',
  curl: 'evd_01HGW3D4E5F6G7H8J9K0M1N2P3',
} as const;

export function sampleExport(tlp?: TlpLevel | null): StixExportInput {
  return {
    sources: [...Object.values(EVIDENCE_IDS), ...Object.values(FINDING_IDS)],
    owner: {
      ownerId: 'own_01HGV9ZK3M4N5P6Q7R8S9T0V1W',
      name: 'Nadia Okafor',
      identityClass: 'individual',
      createdAt: '2023-09-14T08:02:11.518204Z',
      updatedAt: '2023-11-02T17:45:00.000001+01:00',
    },
    campaign: {
      campaignId: 'cmp_01HGW1X0Y1Z2A3B4C5D6E7F8G9',
      name: 'OpenSSL 3.0 punycode overflow review',
      ...(tlp !== undefined && { tlp }),
    },
    evidence: [
      {
        evidenceId: EVIDENCE_IDS.advisory,
        kind: 'WEB_READ',
        url: 'https://www.openssl.org/news/secadv/20221101.txt',
        sha256: `sha256:${hex('3fa9')}`,
        observedAt: '2023-11-01T09:14:27.904113Z',
        title: 'OpenSSL Security Advisory [01 November 2022]',
      },
      {
        evidenceId: EVIDENCE_IDS.nvd,
        kind: 'WEB_READ',
        url: 'https://nvd.nist.gov/vuln/detail/CVE-2022-3602',
        sha256: hex('b07c'),
        observedAt: '2023-11-01T09:20:02.000Z',
        title: null,
      },
      {
        evidenceId: EVIDENCE_IDS.bulletin,
        kind: 'OWNER_IMPORT',
        url: 'not a url',
        sha256: `sha256:${hex('51e2')}`,
        observedAt: '2023-11-01T11:03:40.120+02:00',
        title: 'Vendor bulletin VB-2022-118 (PDF)',
      },
      {
        evidenceId: EVIDENCE_IDS.sbom,
        kind: 'SBOM_IMPORT',
        url: null,
        sha256: `sha256:${hex('9d0d')}`,
        observedAt: '2023-11-01T10:30:00Z',
        title: 'gateway-2.4.1.cdx.json',
        components: [
          { name: 'openssl', version: '3.0.6', purl: 'pkg:generic/openssl@3.0.6' },
          { name: 'curl', version: '7.86.0', purl: 'pkg:generic/curl@7.86.0' },
          { name: 'zlib', version: null, purl: null },
          { name: '', version: '1.0', purl: null },
        ],
      },
    ],
    findings: [
      {
        findingId: FINDING_IDS.overflow,
        claim:
          'OpenSSL 3.0.0 through 3.0.6 overflow a 4-byte stack buffer when verifying a certificate with a crafted punycode email address (CVE-2022-3602, CVE-2022-3786); 3.0.7 fixes both.',
        evidenceIds: [EVIDENCE_IDS.advisory, EVIDENCE_IDS.nvd, EVIDENCE_IDS.sbom],
        affectedVersions: [
          {
            text: 'openssl >= 3.0.0, < 3.0.7',
            name: 'openssl',
            version: '3.0.6',
            vendor: 'OpenSSL Project',
            purl: 'pkg:generic/openssl@3.0.6',
          },
          { text: 'Debian bookworm: pkg:deb/debian/openssl@3.0.5-4?arch=amd64 (CVE-2022-3602).' },
        ],
        unknowns: ['Whether the gateway build enables name constraints checking at all.'],
        contradictions: ['The pre-announcement rated the issue CRITICAL; the advisory rates it HIGH.'],
        reviews: [
          {
            reviewId: 'rev_01HGW4A0000000000000000001',
            verdict: 'SUPPORTED',
            rationale: 'Advisory text and the NVD entry both name 3.0.0-3.0.6 and the fix in 3.0.7.',
            reviewerName: 'agent lyra-7',
            createdAt: '2023-11-01T12:00:00.250Z',
          },
          {
            reviewId: 'rev_01HGW4A0000000000000000002',
            verdict: 'SUPPORTED',
            rationale: 'Reproduced the version range from the SBOM import.',
            createdAt: '2023-11-01T12:30:00.000Z',
            updatedAt: '2023-11-01T12:31:00.000Z',
          },
          {
            reviewId: 'rev_01HGW4A0000000000000000003',
            verdict: 'INSUFFICIENT_EVIDENCE',
            rationale: 'The exploitability claim needs a source beyond the advisory.',
            createdAt: '2023-11-01T13:00:00.000Z',
          },
        ],
        createdAt: '2023-11-01T11:45:00.123456Z',
        updatedAt: '2023-11-01T11:50:00.000Z',
      },
      {
        findingId: FINDING_IDS.severity,
        claim:
          'The vendor bulletin says the gateway is not exploitable because it never parses client certificates.',
        evidenceIds: [EVIDENCE_IDS.bulletin, 'evd_01HGW2ZZZZZZZZZZZZZZZZZZZZ'],
        affectedVersions: [],
        unknowns: [
          'Whether mutual TLS can be enabled by configuration.',
          'Which firmware builds the bulletin covers.',
        ],
        contradictions: [],
        reviews: [
          {
            reviewId: 'rev_01HGW4B0000000000000000001',
            verdict: 'CONTESTED',
            rationale: 'The admin guide documents an mTLS option, so client certificates can be parsed.',
            reviewerName: 'agent orion-2',
            createdAt: '2023-11-01T14:00:00.000Z',
          },
          {
            reviewId: 'rev_01HGW4B0000000000000000002',
            verdict: 'SUPPORTED',
            rationale: 'Default configuration has mTLS off.',
            createdAt: '2023-11-01T14:10:00.000Z',
          },
        ],
        createdAt: '2023-11-01T13:20:00.000Z',
        // An updated_at older than created_at (clock skew) must not make modified < created.
        updatedAt: '2023-11-01T13:19:00.000Z',
      },
      {
        findingId: FINDING_IDS.mitigation,
        claim: 'Disabling name constraints checking is not a supported mitigation.',
        evidenceIds: [EVIDENCE_IDS.advisory],
        affectedVersions: [],
        unknowns: [],
        contradictions: [],
        reviews: [],
        createdAt: '2023-11-01T15:00:00.000Z',
      },
      {
        findingId: FINDING_IDS.curl,
        claim:
          'curl 7.86.0 in the SBOM links the affected OpenSSL; CVE-2022-32221 is unrelated to this campaign.',
        evidenceIds: [EVIDENCE_IDS.sbom],
        affectedVersions: [
          { text: 'curl 7.86.0', name: 'curl', version: '7.86.0', purl: 'pkg:generic/curl@7.86.0' },
        ],
        unknowns: [],
        contradictions: ['One reviewer reads the SBOM as statically linking OpenSSL, another as dynamic.'],
        reviews: [
          {
            reviewId: 'rev_01HGW4D0000000000000000001',
            verdict: 'INSUFFICIENT_EVIDENCE',
            rationale: 'The SBOM does not say how curl links OpenSSL.',
            createdAt: '2023-11-01T16:00:00.000Z',
          },
        ],
        createdAt: '2023-11-01T15:30:00.000Z',
      },
    ],
  };
}
