// The resident tier's record of a link (src/db/redirect-rows.ts): a plain link in a compact form
// read without JSON.parse, any other as its row's JSON. Either way the redirect path must get the
// link the database row gives.
import { describe, expect, it } from 'vitest';
import { linkFromResident, residentRecord, toResolvedRow } from '../../src/db/redirect-rows';

// LINK_COLUMNS order: id, workspace_id, domain_key, slug, original_url, redirect_type, status, start_at, end_at,
// expires_at, expired_url, click_limit, served, password_hash, preview_title, preview_description, preview_image
const plain = (over: Record<number, unknown> = {}): unknown[] => {
  const r: unknown[] = [
    'lnk_01',
    'ws_01',
    '',
    'spring',
    'https://example.com/a?b=1#c',
    'TEMPORARY',
    'ACTIVE',
    null,
    null,
    null,
    null,
    null,
    '0',
    null,
    null,
    null,
    null,
  ];
  for (const [i, v] of Object.entries(over)) r[Number(i)] = v;
  return r;
};

describe('resident record of a link', () => {
  const cases: Array<[string, unknown[], 'compact' | 'json']> = [
    ['a plain link', plain(), 'compact'],
    ['a permanent redirect', plain({ 5: 'PERMANENT' }), 'compact'],
    ['a custom domain', plain({ 2: 'dom_01' }), 'compact'],
    ['a destination that needs encoding for Location', plain({ 4: 'https://例え.jp/パス?q=ü' }), 'compact'],
    ['served counted without a limit', plain({ 12: 41 }), 'compact'],
    ['a disabled link', plain({ 6: 'DISABLED' }), 'json'],
    ['a start time', plain({ 7: '1790000000000' }), 'json'],
    ['an end time', plain({ 8: 1790000000000 }), 'json'],
    ['an expiry with its own destination', plain({ 9: 1790000000000, 10: 'https://example.com/over' }), 'json'],
    ['a click limit', plain({ 11: '10', 12: '3' }), 'json'],
    ['a password', plain({ 13: 'scrypt$...' }), 'json'],
    ['a preview', plain({ 14: 'Title', 15: 'Description', 16: 'https://example.com/i.png' }), 'json'],
    ['a destination that is not http(s)', plain({ 4: 'javascript:alert(1)' }), 'json'],
    ['a destination holding NUL', plain({ 4: 'https://example.com/a\u0000b' }), 'json'],
  ];
  it.each(cases)('%s reads back as the database row', (_, row, form) => {
    const record = residentRecord(row);
    expect(record.startsWith('[') ? 'json' : 'compact').toBe(form);
    const link = linkFromResident(record, row[2] as string, row[3] as string);
    const expected = toResolvedRow(row)!;
    // Without a limit, the served count is never read (decideVisit, countAndRedirect).
    if (expected.clickLimit === null) expected.served = link.served;
    expect(link).toEqual(expected);
  });

  it('keeps a destination that is not http(s) unredirectable', () => {
    const row = plain({ 4: 'javascript:alert(1)' });
    expect(linkFromResident(residentRecord(row), '', 'spring').location).toBeNull();
  });
});
