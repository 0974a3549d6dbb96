/**
 * Security research: the STIX 2.1 export builder (pure; docs/research.md). The records it turns
 * into a bundle live with their areas (findings in campaigns, evidence in reading), which
 * assemble the input and call it through this file.
 */
export * from './stix/index.ts';
