// How long the site icons' cache keeps an answer (src/operations/favicons.ts): a site's own "no
// icon" for a day, a site that could not be reached for ten minutes only, so a passing network
// fault does not hide its icon for a day.
import { Readable } from 'node:stream';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { type GuardedFetch, PreviewFailed } from '../../src/operations/destination-preview';
import { Favicons } from '../../src/operations/favicons';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const MINUTE = 60_000;

/** A fake site: `mode` says how it answers now; every ask is counted. */
function site() {
  const state = { mode: 'down' as 'down' | 'no-icon' | 'icon', asks: 0 };
  const fetch: GuardedFetch = async (address) => {
    state.asks += 1;
    if (state.mode === 'down') throw new PreviewFailed('connect ECONNREFUSED');
    const icon = state.mode === 'icon' && address.endsWith('/favicon.ico');
    const res = Readable.from(icon ? [PNG] : [Buffer.from('not here')]) as unknown as http.IncomingMessage;
    res.statusCode = icon ? 200 : 404;
    res.headers = { 'content-type': icon ? 'image/png' : 'text/plain' };
    return { res, url: new URL(address) };
  };
  return { state, icons: new Favicons(fetch) };
}

describe('site icons kept in memory', () => {
  it('asks an unreachable site again after ten minutes, and keeps its icon once it answers', async () => {
    const { state, icons } = site();
    expect(await icons.get('down.example')).toBeNull();
    state.mode = 'icon';
    const asks = state.asks;
    expect(await icons.get('down.example', Date.now() + 5 * MINUTE)).toBeNull();
    expect(state.asks).toBe(asks);
    expect((await icons.get('down.example', Date.now() + 11 * MINUTE))?.type).toBe('image/png');
  });

  it("keeps a site's own answer that it has no icon for a day", async () => {
    const { state, icons } = site();
    state.mode = 'no-icon';
    expect(await icons.get('plain.example')).toBeNull();
    state.mode = 'icon';
    const asks = state.asks;
    expect(await icons.get('plain.example', Date.now() + 11 * MINUTE)).toBeNull();
    expect(await icons.get('plain.example', Date.now() + 23 * 60 * MINUTE)).toBeNull();
    expect(state.asks).toBe(asks);
    expect((await icons.get('plain.example', Date.now() + 25 * 60 * MINUTE))?.type).toBe('image/png');
  });
});
