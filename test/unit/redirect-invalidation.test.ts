// A cache miss read asynchronously (the lookup thread on SQLite, a query on Postgres) can be in
// flight when the link changes. Its answer still serves its own request, which came first, but
// must not be cached: the next click would then get the old link until some later change.
import { describe, expect, it, vi } from 'vitest';
import type { ResolvedLink } from '../../src/domain/resolve';
import { standInRedirectService, testLink } from '../support/redirect-service';

function link(url: string): ResolvedLink {
  return testLink(url);
}

function service() {
  const { redirects, store, misses: answers, visit } = standInRedirectService();
  return { redirects, store, answers, visit };
}

describe('an asynchronous cache miss and a change that crosses it', () => {
  it('serves the request that came first the old link, and the next click the new one', async () => {
    const { redirects, store, answers, visit } = service();
    const first = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(1);
    // The change commits and is invalidated while the read is in flight.
    redirects.linkChanged('', 'abc');
    answers[0](link('https://example.com/old'));
    expect(await first).toBe('https://example.com/old');
    const second = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(2);
    answers[1](link('https://example.com/new'));
    expect(await second).toBe('https://example.com/new');
    // With no change in between, an answer is cached as before.
    expect(await visit('/abc')).toBe('https://example.com/new');
    expect(store.findLink).toHaveBeenCalledTimes(2);
  });

  it('does the same for a change of domains (which drops every entry)', async () => {
    const { redirects, store, answers, visit } = service();
    const first = visit('/abc');
    redirects.domainChanged();
    answers[0](null);
    expect(await first).toBeUndefined(); // the not-found page has no Location
    const second = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(2);
    answers[1](link('https://example.com/now-there'));
    expect(await second).toBe('https://example.com/now-there');
  });
});
