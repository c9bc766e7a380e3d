// Clicks cross to the writer thread as columns with each distinct string sent once: every
// field of every click must come back as it was recorded, absent fields included.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { decodeClicks, encodeClicks } from '../../src/redirect/click-writer';
import type { ClickEvent } from '../../src/redirect/clicks';

const clicks: ClickEvent[] = [
  { linkId: 'lnk_a', workspaceId: 'ws_1', qrCodeId: null, at: 1_795_000_000_123, referer: 'https://news.example/x', country: 'de', userAgent: 'UA one' },
  { linkId: 'lnk_b', workspaceId: 'ws_1', qrCodeId: 'qr_1', at: 1_795_000_000_124, referer: undefined, country: undefined, userAgent: undefined },
  { linkId: 'lnk_a', workspaceId: 'ws_2', qrCodeId: null, at: 1_795_000_000_125, referer: 'https://news.example/x', country: 'fr', userAgent: 'UA one' },
  // A value equal to another field's must not be confused with it.
  { linkId: 'ws_1', workspaceId: 'ws_1', qrCodeId: null, at: 0, referer: '', country: undefined, userAgent: 'lnk_a' },
];

describe('click hand-off to the writer thread', () => {
  it('decodes exactly what was encoded, in order', () => {
    expect(decodeClicks(encodeClicks(clicks))).toEqual(clicks);
  });

  it('sends each distinct string once', () => {
    const c = encodeClicks(clicks);
    expect(new Set(c.strings).size).toBe(c.strings.length);
    expect(c.strings.sort()).toEqual(['', 'UA one', 'fr', 'de', 'https://news.example/x', 'lnk_a', 'lnk_b', 'qr_1', 'ws_1', 'ws_2'].sort());
  });

  it('survives the trip through a message port, appending parts in order', async () => {
    const { port1, port2 } = new MessageChannel();
    const got: ClickEvent[] = [];
    const received = new Promise<void>((resolve) => {
      let parts = 0;
      port2.on('message', (m) => {
        decodeClicks(m, got);
        if (++parts === 2) resolve();
      });
    });
    for (const part of [clicks.slice(0, 2), clicks.slice(2)]) {
      const c = encodeClicks(part);
      port1.postMessage(c, [c.refs.buffer, c.at.buffer]);
    }
    await received;
    port1.close();
    expect(got).toEqual(clicks);
  });

  it('encodes an empty batch', () => {
    expect(decodeClicks(encodeClicks([]))).toEqual([]);
  });
});
