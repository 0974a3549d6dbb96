/**
 * The SPDX JSON 2.2 and 2.3 document shapes, written by hand from the official draft-07 schemas
 * (copies in test/fixtures/schemas/spdx/, where spdx-parity.test.ts holds these rules to them).
 * The schemas use only type, required, properties, additionalProperties:false, items, enum and
 * minItems, and declare no pattern or format, so that is all a rule can say.
 */

import {
  CHECKSUM_22,
  CHECKSUM_23,
  FILE_TYPES,
  PURPOSE_23,
  REFERENCE_CATEGORY_22,
  REFERENCE_CATEGORY_23,
  RELATIONSHIP_22,
  RELATIONSHIP_23,
} from './spdx-enums.ts';

export type Rule =
  | { kind: 'string'; enum?: readonly string[] }
  | { kind: 'boolean' }
  | { kind: 'integer' }
  | { kind: 'array'; items: Rule; minItems?: number }
  | {
      kind: 'object';
      properties: Readonly<Record<string, Rule>>;
      required: readonly string[];
      closed: boolean;
    };

const str: Rule = { kind: 'string' };
const bool: Rule = { kind: 'boolean' };
const int: Rule = { kind: 'integer' };
const oneOf = (values: readonly string[]): Rule => ({ kind: 'string', enum: values });
const list = (items: Rule, minItems?: number): Rule =>
  minItems === undefined ? { kind: 'array', items } : { kind: 'array', items, minItems };
/** Every object in both schemas is closed (additionalProperties:false) except files[].artifactOfs[]. */
const obj = (properties: Record<string, Rule>, required: readonly string[], closed = true): Rule => ({
  kind: 'object',
  properties,
  required,
  closed,
});

const annotations = list(
  obj({ annotationDate: str, annotationType: oneOf(['OTHER', 'REVIEW']), annotator: str, comment: str }, [
    'annotationDate',
    'annotationType',
    'annotator',
    'comment',
  ]),
);
const strings = list(str);
const pointer = obj({ reference: str, offset: int, lineNumber: int }, ['reference']);

/** What differs between the versions; everything else is shared. */
interface VersionTraits {
  checksum: readonly string[];
  referenceCategory: readonly string[];
  relationship: readonly string[];
  packageRequired: readonly string[];
  fileRequired: readonly string[];
  snippetRequired: readonly string[];
  /** 2.2 requires at least one licenseInfoInFiles entry; 2.3 does not. */
  licenseInfoInFilesMin: number | undefined;
  /** Package fields that 2.3 added. */
  packageExtra: Record<string, Rule>;
}

function documentRule(v: VersionTraits): Rule {
  const checksum = obj({ algorithm: oneOf(v.checksum), checksumValue: str }, ['algorithm', 'checksumValue']);
  const pkg = obj(
    {
      SPDXID: str,
      annotations,
      attributionTexts: strings,
      checksums: list(checksum),
      comment: str,
      copyrightText: str,
      description: str,
      downloadLocation: str,
      externalRefs: list(
        obj(
          {
            comment: str,
            referenceCategory: oneOf(v.referenceCategory),
            referenceLocator: str,
            referenceType: str,
          },
          ['referenceCategory', 'referenceLocator', 'referenceType'],
        ),
      ),
      filesAnalyzed: bool,
      hasFiles: strings,
      homepage: str,
      licenseComments: str,
      licenseConcluded: str,
      licenseDeclared: str,
      licenseInfoFromFiles: strings,
      name: str,
      originator: str,
      packageFileName: str,
      packageVerificationCode: obj(
        { packageVerificationCodeExcludedFiles: strings, packageVerificationCodeValue: str },
        ['packageVerificationCodeValue'],
      ),
      sourceInfo: str,
      summary: str,
      supplier: str,
      versionInfo: str,
      ...v.packageExtra,
    },
    v.packageRequired,
  );
  const file = obj(
    {
      SPDXID: str,
      annotations,
      artifactOfs: list(obj({}, [], false)),
      attributionTexts: strings,
      checksums: list(checksum, 1),
      comment: str,
      copyrightText: str,
      fileContributors: strings,
      fileDependencies: strings,
      fileName: str,
      fileTypes: list(oneOf(FILE_TYPES)),
      licenseComments: str,
      licenseConcluded: str,
      licenseInfoInFiles: list(str, v.licenseInfoInFilesMin),
      noticeText: str,
    },
    v.fileRequired,
  );
  const snippet = obj(
    {
      SPDXID: str,
      annotations,
      attributionTexts: strings,
      comment: str,
      copyrightText: str,
      licenseComments: str,
      licenseConcluded: str,
      licenseInfoInSnippets: strings,
      name: str,
      ranges: list(obj({ endPointer: pointer, startPointer: pointer }, ['endPointer', 'startPointer']), 1),
      snippetFromFile: str,
    },
    v.snippetRequired,
  );
  const crossRef = obj(
    { isLive: bool, isValid: bool, isWayBackLink: bool, match: str, order: int, timestamp: str, url: str },
    ['url'],
  );
  return obj(
    {
      SPDXID: str,
      annotations,
      comment: str,
      creationInfo: obj({ comment: str, created: str, creators: list(str, 1), licenseListVersion: str }, [
        'created',
        'creators',
      ]),
      dataLicense: str,
      externalDocumentRefs: list(
        obj({ checksum, externalDocumentId: str, spdxDocument: str }, [
          'checksum',
          'externalDocumentId',
          'spdxDocument',
        ]),
      ),
      hasExtractedLicensingInfos: list(
        obj(
          {
            comment: str,
            crossRefs: list(crossRef),
            extractedText: str,
            licenseId: str,
            name: str,
            seeAlsos: strings,
          },
          ['extractedText', 'licenseId'],
        ),
      ),
      name: str,
      revieweds: list(obj({ comment: str, reviewDate: str, reviewer: str }, ['reviewDate'])),
      spdxVersion: str,
      documentNamespace: str,
      documentDescribes: strings,
      packages: list(pkg),
      files: list(file),
      snippets: list(snippet),
      relationships: list(
        obj(
          {
            spdxElementId: str,
            comment: str,
            relatedSpdxElement: str,
            relationshipType: oneOf(v.relationship),
          },
          ['spdxElementId', 'relatedSpdxElement', 'relationshipType'],
        ),
      ),
    },
    // documentNamespace is required by the SPDX specification but not by either JSON schema.
    ['SPDXID', 'creationInfo', 'dataLicense', 'name', 'spdxVersion'],
  );
}

export const SPDX_RULES: Readonly<Record<string, Rule>> = {
  '2.2': documentRule({
    checksum: CHECKSUM_22,
    referenceCategory: REFERENCE_CATEGORY_22,
    relationship: RELATIONSHIP_22,
    packageRequired: [
      'SPDXID',
      'copyrightText',
      'downloadLocation',
      'licenseConcluded',
      'licenseDeclared',
      'name',
    ],
    fileRequired: [
      'SPDXID',
      'checksums',
      'copyrightText',
      'fileName',
      'licenseConcluded',
      'licenseInfoInFiles',
    ],
    snippetRequired: ['SPDXID', 'copyrightText', 'licenseConcluded', 'name', 'ranges', 'snippetFromFile'],
    licenseInfoInFilesMin: 1,
    packageExtra: {},
  }),
  '2.3': documentRule({
    checksum: CHECKSUM_23,
    referenceCategory: REFERENCE_CATEGORY_23,
    relationship: RELATIONSHIP_23,
    packageRequired: ['SPDXID', 'downloadLocation', 'name'],
    fileRequired: ['SPDXID', 'checksums', 'fileName'],
    snippetRequired: ['SPDXID', 'name', 'ranges', 'snippetFromFile'],
    licenseInfoInFilesMin: undefined,
    packageExtra: {
      builtDate: str,
      primaryPackagePurpose: oneOf(PURPOSE_23),
      releaseDate: str,
      validUntilDate: str,
    },
  }),
};
