import type { Area } from '../../framework/index.ts';
import { decodeBody } from '../../net/body.ts';
import { READING_ERRORS } from './errors.ts';
import { ImportService } from './imports.ts';
import { PUBLISHED_READING_LIMITS, READING_LIMITS } from './limits.ts';
import { readingOperations } from './operations.ts';
import { OwnerEvidence } from './owner-evidence.ts';
import { searchProviderFor } from './search.ts';
import { EvidenceSearch } from './search-index.ts';
import { ReadingService } from './service.ts';
import { type ReadingSettings, readingSettings } from './settings.ts';
import * as tables from './tables.ts';
import { noCampaigns, type ReadCoverage } from './types.ts';

/** The reading area's public surface: guarded reads, evidence, citations and policy receipts. */

export { IMPORT_FORMATS, type ImportFormat } from '../../parsing/index.ts';
export { storeAuthored, storeReceivedMail } from './authored.ts';
export {
  type ImportFileInput,
  importFileArgs,
  importFileRequest,
  ONE_FILE_MESSAGE,
  sendsOneFile,
} from './import-args.ts';
export {
  IMPORT_AUTHENTICITY,
  IMPORT_TRUST_LABEL,
  type ImportRequest,
  ImportService,
  presentImport,
} from './imports.ts';
export { READING_LIMITS } from './limits.ts';
export { OwnerEvidence, PREVIEW_PAGES } from './owner-evidence.ts';
export { maxCharsArg, offsetArg } from './schemas.ts';
export type { SearchProvider, ServiceFetcher } from './search.ts';
export { EvidenceSearch, type SearchKind, type SearchRequest } from './search-index.ts';
export { type PageReader, ReadingService } from './service.ts';
export type { BodyDecoder } from './stored-text.ts';
export {
  type Coverage,
  type EvidenceRecord,
  noCampaigns,
  type ReadCoverage,
  type SearchReach,
  type TextMatch,
} from './types.ts';
export { whenReading } from './visibility.ts';
export { type TextWindow, windowOf } from './window.ts';

export const readingArea = {
  name: 'reading',
  settings: readingSettings,
  tables,
  errors: READING_ERRORS,
  operations: readingOperations,
  limits: PUBLISHED_READING_LIMITS,
  extensionDefaults: { readCoverage: noCampaigns },
  start({ database, clock, outbound, parser, config, logger, extensions, secret }) {
    const search = searchProviderFor(config.search, outbound.fetcher);
    const reading = new ReadingService(
      database,
      clock,
      outbound.fetcher,
      parser,
      extensions.readCoverage,
      (raw, encoding) => decodeBody(raw, encoding ?? undefined, READING_LIMITS.read.responseBytes),
      { maxConcurrentReads: config.readConcurrency, searchConfigured: search !== null },
    );
    if (search) logger.info({ provider: search.name }, 'web_search provider configured');
    const imports = new ImportService(database, clock, parser, extensions.readCoverage);
    const ownerEvidence = new OwnerEvidence(database, parser, extensions.readCoverage);
    const evidenceSearch = new EvidenceSearch(database, secret, extensions.readCoverage);
    return { services: { reading, search, imports, ownerEvidence, evidenceSearch } };
  },
} satisfies Area;

/** The area's tables, added to the schema type of every database handle (storage/tables.ts). */
type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** What reading asks of other areas (docs/architecture.md, Extensions). */
declare module '../../framework/area.ts' {
  interface Extensions {
    /** Whether a fresh read must be covered by a lease, and who may see stored evidence. */
    readCoverage: ReadCoverage;
  }
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** evidence. */
    evd: 'reading';
    /** policy decisions. */
    pol: 'reading';
  }
}

/** Its settings, joined into Config (config/settings.ts). */
declare module '../../config/settings.ts' {
  interface AreaSettings extends ReadingSettings {}
}
