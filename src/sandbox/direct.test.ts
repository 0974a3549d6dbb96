import { describe, expect, it } from 'vitest';
import { execDirect, loadEngine } from './direct.ts';

describe('execDirect', () => {
  it('runs a program in the calling thread with the same world and answer shape as the pool', async () => {
    const engine = await loadEngine();
    const files = [
      {
        path: 'main.js',
        content:
          "const { twice } = require('./lib');\nsandbox.writeFile('out.txt', String(twice(21)));\nconsole.log('ok');",
      },
      { path: 'lib.js', content: 'exports.twice = (n) => n * 2;' },
    ];
    const result = execDirect(engine, { files, entry: 'main.js' });
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: 'ok\n',
      changed: [{ path: 'out.txt', content: '42' }],
    });
    expect(result).not.toHaveProperty('engineBroken');
    expect(execDirect(engine, { files, entry: 'nope.js' }).exitCode).toBe(125);
    // The interrupt handler still bounds a plain loop here; only the pool can stop a blocked builtin.
    expect(
      execDirect(engine, {
        files: [{ path: 'l.js', content: 'for (;;) {}' }],
        entry: 'l.js',
        timeoutMs: 200,
      }),
    ).toMatchObject({
      exitCode: 124,
      limit: 'TIME',
    });
  });
});
