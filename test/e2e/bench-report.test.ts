import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { FIGURES, type Outcome, parseFigures, renderResults } from '../../bench/all.ts';

/**
 * `npm run bench` as a reader meets it: usage for an unknown name, and the `all` report's table
 * built from benchmarks' `name=value` lines. Behaviour only; no speed is measured here
 * (docs/performance.md: speed is measured by `npm run bench`, never by timed tests).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
vi.setConfig({ testTimeout: 120_000 });

function bench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/bench.js'), ...args], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function outcome(bench: string, output: string, code = 0): Outcome {
  return { bench, code, seconds: 1, figures: parseFigures(output), skipped: false, errorTail: 'boom' };
}

describe('npm run bench', () => {
  it('names every benchmark, all included, when the name is unknown', async () => {
    const { code, stderr } = await bench(['nosuch']);
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown benchmark "nosuch".');
    for (const name of [
      'all',
      'campaign',
      'mcp',
      'read',
      'search',
      'rewards',
      'mail',
      'sandbox',
      'injection',
      'bodies',
    ]) {
      expect(stderr).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
  });

  it('refuses an unknown name given to all before running anything', async () => {
    const { code, stderr } = await bench(['all', 'nosuch']);
    expect(code).toBe(2);
    expect(stderr).toContain('nosuch');
  });
});

describe('the all report', () => {
  it('reads only lines made of name=value pairs', () => {
    const figures = parseFigures(
      'claims: 1000 attempts = 231.2 claims/s\nclaims_per_s=231.2\nplain_recall=0.31 plain_false_flag_rate=0.00\ncairn-embedded ratio=0.34\ninvariant_check=ok (12 accounts)\n',
    );
    expect(Object.fromEntries(figures)).toEqual({
      claims_per_s: '231.2',
      plain_recall: '0.31',
      plain_false_flag_rate: '0.00',
    });
  });

  it('judges each figure against its target and reports a failed benchmark as failed', () => {
    const md = renderResults(
      [
        outcome(
          'campaign',
          'claims_per_s=400\nplain_claims_per_s=1000\nclaim_ratio=0.40\nwatch_p99_ms=90\nplain_watch_p99_ms=80\nwatch_ratio=1.13\n',
        ),
        outcome('mcp', 'mcp_ratio=0.9\n', 1),
      ],
      { database: 'PostgreSQL 15', load: '1.00, 1.00, 1.00' },
    );
    const rows = md.split('\n').filter((l) => l.startsWith('| '));
    const find = (bench: string, label: string) =>
      rows.find((r) => r.startsWith(`| ${bench} | ${label}`)) ?? `no row ${bench} ${label}`;
    expect(find('campaign', 'contested task_claim claims/s, 100 clients')).toContain(
      '| 400 | 1000 | 0.40 | ratio >= 0.5 | **fail** |',
    );
    expect(find('campaign', 'events_watch wake-up p99 ms, 500 waiters')).toContain(
      '| 1.13 | ratio <= 1.3 | pass |',
    );
    // Every mcp figure is there, each marked failed, not dropped.
    const mcpRows = rows.filter((r) => r.startsWith('| mcp |'));
    expect(mcpRows).toHaveLength(FIGURES.filter((f) => f.bench === 'mcp').length);
    for (const r of mcpRows) expect(r).toContain('**FAILED** (exit 1)');
    // A benchmark not run at all still has its rows.
    expect(find('search', 'evidence_search p95 ms, 100,000 texts')).toContain('not run');
    expect(md).toContain('## Failed');
    expect(md).toMatch(/Machine: \d+ cores/);
    expect(md).toContain('Database: PostgreSQL 15');
  });
});
