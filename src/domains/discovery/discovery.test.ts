import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SERVER_VERSION } from './connect-methods.ts';
import { buildGuide } from './guide.ts';
import { buildResearchCases } from './research-case.ts';
import type { ToolDoc } from './tool-docs.ts';

describe('discovery documents', () => {
  it('serve the version package.json carries', () => {
    const pkg = createRequire(import.meta.url)('../../../package.json') as { version: string };
    expect(SERVER_VERSION).toBe(pkg.version);
  });

  it('describe only the connection methods that exist', () => {
    const none = buildGuide('https://c.example', {
      projectKey: true,
      devicePairing: false,
      nativeOAuth: false,
    });
    expect(none).toMatch(/## 2\. Device pairing\n\nNot offered by this server yet/);
    const all = buildGuide('https://c.example', { projectKey: true, devicePairing: true, nativeOAuth: true });
    expect(all).toContain('https://c.example/oauth/device_authorization');
    expect(all).not.toContain('Not offered');
  });

  it('refuse to build a research case that no longer matches the catalogue', () => {
    const tool = (name: string, properties: string[], required: string[] = []): ToolDoc => ({
      name,
      group: 'Campaigns',
      description: '',
      mutates: false,
      visible_when: '',
      input_schema: { properties: Object.fromEntries(properties.map((p) => [p, {}])), required },
    });
    expect(() => buildResearchCases('https://c.example', [])).toThrow(/no tool/);
    const renamed = [tool('evidence_locate', ['evidence_id', 'text'])];
    expect(() => buildResearchCases('https://c.example', renamed)).toThrow(
      /evidence_locate has no argument quote/,
    );
  });
});
