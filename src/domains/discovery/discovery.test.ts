import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SERVER_VERSION } from './connect-methods.ts';
import { buildGuide } from './guide.ts';

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
});
