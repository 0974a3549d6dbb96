import { citationGet, evidenceGet, evidenceLocate, evidenceView } from './evidence-tools.ts';
import { diffSince, extractJson, extractTable } from './extract-tools.ts';
import { explainPolicy, fetchSnapshot, fetchText, webSearch } from './read-tools.ts';

/** The Read group in SPEC's order. */
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
];

/** evidence_get, which SPEC lists with the Campaigns tools; it reads the same evidence. */
export const evidenceOperations = [evidenceGet];
