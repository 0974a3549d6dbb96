import { citationGet, evidenceGet, evidenceLocate, evidenceView } from './tools/evidence-tools.ts';
import { diffSince, extractJson, extractTable } from './tools/extract-tools.ts';
import { explainPolicy, fetchSnapshot, fetchText, webSearch } from './tools/read-tools.ts';
import { evidenceSearch } from './tools/search-tools.ts';

/** The reading tools (the Read group, and evidence_get of SPEC's Campaigns group); the catalogue orders them. */
export const readingOperations = [
  webSearch,
  fetchText,
  fetchSnapshot,
  extractTable,
  extractJson,
  citationGet,
  diffSince,
  explainPolicy,
  evidenceLocate,
  evidenceView,
  evidenceSearch,
  evidenceGet,
];
