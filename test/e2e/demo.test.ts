import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_STEPS } from '../../src/domains/discovery/demo.ts';

/** Issue 15 item 2: `npm run demo` runs by itself, from pairing to a VERIFIED task, printing each step. */

describe('npm run demo', () => {
  it('pairs two agents and takes a campaign task to VERIFIED, printing every step', async () => {
    const child = spawn(process.execPath, [path.resolve('bin/demo.js')], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code, err).toBe(0);
    for (const [i, s] of DEMO_STEPS.entries()) {
      expect(out).toContain(`${String(i + 1).padStart(2)}. ${s.actor.padEnd(6)} ${s.call}: ${s.what}`);
    }
    expect(out).toContain('→ VERIFIED; 1 quotation matched');
    expect(out).toContain('Done: the task is VERIFIED.');
    // No log lines in the way of the story.
    expect(out.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  }, 120_000);
});
