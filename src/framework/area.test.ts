import { describe, expect, it } from 'vitest';
import { type Area, type Core, type Extensions, gatherExtensions, startAreas } from './area.ts';

const area = (name: string, services: object, extras: Partial<Area> = {}): Area => ({
  name,
  tables: {},
  errors: {},
  operations: [],
  start: () => ({ services }),
  ...extras,
});
// Extension values as the framework sees them: opaque, keyed by name (areas declare the keys).
const ext = (values: Record<string, unknown>) => values as Partial<Extensions>;

describe('the area contract', () => {
  it('joins the areas services, and refuses one service name offered twice', async () => {
    const core = {} as Core;
    const joined = await startAreas<Record<string, unknown>>(
      [area('a', { x: 1 }), area('b', { y: 2 })],
      core,
    );
    expect(joined.services).toEqual({ x: 1, y: 2 });
    await expect(startAreas([area('a', { x: 1 }), area('b', { x: 2 })], core)).rejects.toThrow(
      /Service x of b is already offered/,
    );
  });

  it('gathers extensions over the consumers defaults, and refuses two providers or no consumer', () => {
    const consumer = area('consumer', {}, { extensionDefaults: ext({ coverage: 'none', gate: 'open' }) });
    const provider = area('provider', {}, { extensions: ext({ coverage: 'leases' }) });
    expect(gatherExtensions([consumer, provider], [consumer, provider])).toEqual({
      coverage: 'leases',
      gate: 'open',
    });
    // A provider that is switched off plugs nothing in: the consumer's default stands.
    expect(gatherExtensions([consumer, provider], [consumer])).toEqual({ coverage: 'none', gate: 'open' });
    const second = area('second', {}, { extensions: ext({ coverage: 'other' }) });
    expect(() => gatherExtensions([consumer, provider, second], [consumer, provider, second])).toThrow(
      /coverage is provided by both provider and second/,
    );
    const stray = area('stray', {}, { extensions: ext({ unknown: 1 }) });
    expect(() => gatherExtensions([consumer, stray], [consumer, stray])).toThrow(
      /unknown of stray has no area that consumes it/,
    );
  });
});
