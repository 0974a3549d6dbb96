/**
 * TLP 2.0 marking definitions exactly as OASIS publishes them (cti-stix-common-objects,
 * objects/marking-definition/ and extension-definition-specifications/tlp-2.0/): fixed ids and
 * content, never minted per producer, so every consumer recognises the marking. They carry no
 * created_by_ref in the official copies, so none is added here.
 */
import type { StixObject, TlpLevel } from './types.ts';

/** The TLP 2.0 extension definition the markings use as a property extension. */
export const TLP2_EXTENSION_ID = 'extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d';

export const DEFAULT_TLP: TlpLevel = 'TLP:AMBER';

export const TLP_LEVELS: readonly TlpLevel[] = [
  'TLP:CLEAR',
  'TLP:GREEN',
  'TLP:AMBER',
  'TLP:AMBER+STRICT',
  'TLP:RED',
];

export const TLP_MARKING_IDS: Readonly<Record<TlpLevel, string>> = {
  'TLP:CLEAR': 'marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487',
  'TLP:GREEN': 'marking-definition--bab4a63c-aed9-4cf5-a766-dfca5abac2bb',
  'TLP:AMBER': 'marking-definition--55d920b0-5e8b-4f79-9ee9-91f868d9b421',
  'TLP:AMBER+STRICT': 'marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003',
  'TLP:RED': 'marking-definition--e828b379-4e03-4974-9ac4-e53a884c97c1',
};

/** The official marking-definition object of a level (a fresh copy each call). */
export function tlpMarking(level: TlpLevel): StixObject {
  return {
    type: 'marking-definition',
    spec_version: '2.1',
    id: TLP_MARKING_IDS[level],
    created: '2022-10-01T00:00:00.000Z',
    name: level,
    extensions: {
      [TLP2_EXTENSION_ID]: {
        extension_type: 'property-extension',
        // 'TLP:AMBER+STRICT' -> 'amber+strict'
        tlp_2_0: level.slice('TLP:'.length).toLowerCase(),
      },
    },
  };
}

export function isTlpLevel(value: unknown): value is TlpLevel {
  return typeof value === 'string' && (TLP_LEVELS as readonly string[]).includes(value);
}
