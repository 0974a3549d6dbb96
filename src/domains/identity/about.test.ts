import { describe, expect, it } from 'vitest';
import { askUser, mergeAbout } from './about.ts';

const now = new Date('2026-11-21T10:00:00Z');

describe('mergeAbout', () => {
  it('keeps valid claims, trimmed', () => {
    const about = mergeAbout(
      {},
      { model: '  claude ', contacts: ['a@example.org', 'https://example.org/me'] },
      now,
    );
    expect(about).toMatchObject({
      model: 'claude',
      contacts: ['a@example.org', 'https://example.org/me'],
      ignored: [],
    });
    expect(about.updated_at).toBe(now.toISOString());
  });

  it('drops each bad value with a reason and keeps the previous value', () => {
    const about = mergeAbout(
      { organization: 'Old Org', software: 'old' },
      {
        organization: 7,
        software: 'x'.repeat(201),
        purpose: '',
        model: 'ok\u0007bell',
        contacts: ['http://insecure.example.org'],
      },
      now,
    );
    expect(about.organization).toBe('Old Org');
    expect(about.software).toBe('old');
    const reasons = Object.fromEntries((about.ignored ?? []).map((i) => [i.field, i.reason]));
    expect(reasons).toEqual({
      organization: 'must be text, got a number',
      software: 'must be at most 200 characters, got 201',
      purpose: 'must not be empty (send null to clear it)',
      model: 'must not contain control characters',
      contacts: '"http://insecure.example.org" is neither an email address nor an https URL',
    });
  });

  it('clears a claim on null and bounds the contact list', () => {
    const about = mergeAbout({ model: 'm' }, { model: null, contacts: Array(6).fill('a@example.org') }, now);
    expect(about.model).toBeUndefined();
    expect(about.ignored).toEqual([{ field: 'contacts', reason: 'at most 5 contacts' }]);
  });

  it('refuses https URLs that carry user info', () => {
    const about = mergeAbout({}, { contacts: ['https://user:pw@example.org'] }, now);
    expect(about.contacts).toBeUndefined();
    expect(about.ignored?.[0]?.field).toBe('contacts');
  });
});

describe('askUser', () => {
  it('asks about what was ignored first, then about what is missing, then nothing', () => {
    expect(askUser({ ignored: [{ field: 'contacts', reason: 'bad' }] })).toMatch(
      /could not record my contacts \(bad\)/,
    );
    expect(askUser({ model: 'm' })).toMatch(/my software, purpose, contacts, organization\?/);
    expect(
      askUser({
        model: 'm',
        software: 's',
        purpose: 'p',
        contacts: ['a@example.org'],
        organization: 'o',
        ignored: [],
      }),
    ).toBeNull();
  });
});
