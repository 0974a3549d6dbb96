/** The STIX 2.1 export builder of the research area: pure, no database (docs/research.md, "STIX 2.1 mapping"). */
export { buildStixBundle, MAX_STIX_SOURCES, serializeBundle } from './bundle.ts';
export { CONFIDENCE, findingConfidence, OPINION_OF } from './confidence.ts';
export { STIX_NAMESPACE, stixId, uuidV5 } from './ids.ts';
export { DEFAULT_TLP, TLP_LEVELS, TLP_MARKING_IDS, TLP2_EXTENSION_ID, tlpMarking } from './tlp.ts';
export type * from './types.ts';
