import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from './index.ts';

const rules = (text: string) => parseFrontmatter(text).problems.map((p) => p.rule);

describe('parseFrontmatter', () => {
  it('splits fields and body, keeping every scalar a string', () => {
    const out = parseFrontmatter('---\nname: x\nversion: 1.0\nflag: yes\n---\n# Body\n');
    expect(out.problems).toEqual([]);
    expect(out.fields).toEqual({ name: 'x', version: '1.0', flag: 'yes' });
    expect(out.body).toBe('# Body\n');
  });

  it('accepts CRLF line endings and a BOM', () => {
    const out = parseFrontmatter('\uFEFF---\r\nname: x\r\n---\r\nbody');
    expect(out.fields).toEqual({ name: 'x' });
    expect(out.body).toBe('body');
  });

  it('requires an opening fence on the first line', () => {
    expect(rules('name: x\n---\n')).toEqual(['FRONTMATTER_MISSING']);
    expect(rules('\n---\nname: x\n---\n')).toEqual(['FRONTMATTER_MISSING']);
  });

  it('requires a closing fence', () => {
    expect(rules('---\nname: x\n')).toEqual(['FRONTMATTER_UNCLOSED']);
    expect(rules('---\nname: x\n----\n')).toEqual(['FRONTMATTER_UNCLOSED']);
  });

  it('reports YAML errors with the parser message', () => {
    const out = parseFrontmatter('---\nname: [x\n---\n');
    expect(out.fields).toBeNull();
    expect(out.problems).toHaveLength(1);
    expect(out.problems[0]).toMatchObject({ path: 'SKILL.md', rule: 'FRONTMATTER_INVALID_YAML' });
    expect(out.problems[0]!.message).toMatch(/^Invalid YAML in frontmatter: ./);
  });

  it('refuses duplicate keys', () => {
    expect(rules('---\nname: a\nname: b\n---\n')).toEqual(['FRONTMATTER_INVALID_YAML']);
  });

  it('refuses aliases (billion laughs)', () => {
    const laughs = '---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\n';
    expect(rules(laughs)).toEqual(['FRONTMATTER_INVALID_YAML']);
    expect(rules('---\nanchor: &a x\n---\n')).toEqual([]);
  });

  it('refuses collection keys', () => {
    expect(rules('---\n? [a]\n: b\n---\n')).toEqual(['FRONTMATTER_INVALID_YAML']);
  });

  it('requires a mapping', () => {
    expect(rules('---\n- a\n---\n')).toEqual(['FRONTMATTER_NOT_MAPPING']);
    expect(rules('---\njust text\n---\n')).toEqual(['FRONTMATTER_NOT_MAPPING']);
    expect(rules('---\n---\n')).toEqual(['FRONTMATTER_NOT_MAPPING']);
  });

  it("keeps a '__proto__' key as an ordinary field", () => {
    const { fields } = parseFrontmatter('---\n__proto__:\n  polluted: yes\n---\n');
    expect(Object.hasOwn(fields!, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
