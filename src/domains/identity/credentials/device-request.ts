import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { IDENTITY_LIMITS } from './limits.ts';

/**
 * What a runtime sends to start device pairing (RFC 8628 §3.1 and SPEC's runtime fields), and the
 * user codes an owner types on /pair: how they are made, shown and read back.
 */

/** RFC 8628 §6.1: consonants only, no vowels (no words) and nothing easily confused. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** What a runtime sends to start pairing (SPEC: POST /oauth/device_authorization). */
export const deviceRequestSchema = z
  .object({
    /**
     * RFC 8628 §3.1: a registered client names itself (a confidential one authenticates too);
     * SPEC's runtimes pair without one and name themselves with display_name and runtime, which
     * default to the client's registered name when a client asks.
     */
    client_id: z.string().min(1).max(200).optional(),
    client_secret: z.string().min(1).max(512).optional(),
    display_name: z.string().trim().min(1).max(IDENTITY_LIMITS.displayName.maxChars).optional(),
    runtime: z.string().trim().min(1).max(IDENTITY_LIMITS.runtime.maxChars).optional(),
    requested_mode: z.enum(['READ', 'NONE']).optional(),
    matching_request_id: z.string().min(1).max(96).optional(),
    // Self-description: checked softly (bad values are dropped and shown as ignored), like identity_update_about.
    model: z.unknown().optional(),
    software: z.unknown().optional(),
    purpose: z.unknown().optional(),
    contacts: z.unknown().optional(),
    organization: z.unknown().optional(),
  })
  .strict();
export type DeviceRequest = z.infer<typeof deviceRequestSchema>;

/** Normalises what an owner types: case and the dash do not matter. */
export function normalizeUserCode(input: string): string {
  return input.toUpperCase().replace(/[^A-Z]/g, '');
}

export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}
