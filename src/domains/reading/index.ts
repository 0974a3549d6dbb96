/** The reading area's public surface: guarded reads, evidence, citations and policy receipts. */

export { evidenceOperations, readingOperations } from './operations.ts';
export { BraveProvider, type SearchProvider, SearxngProvider, type ServiceFetcher } from './search.ts';
export { type BodyDecoder, type PageReader, ReadingService } from './service.ts';
export { type Coverage, type EvidenceRecord, noCampaigns, type ReadCoverage } from './types.ts';
export { whenReading } from './visibility.ts';
