// Clicks are buffered as columns (ClickBuffer) and cross to the writer thread as parts of
// columns with each distinct string sent once (a link id once per click): every field of every click must come back as it
// was recorded, absent fields included, in order, whatever the split into parts.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ClickBuffer, FIELD, type ClickEvent } from '../../src/clicks/buffer';

const clicks: ClickEvent[] = [
  {
    linkId: 'lnk_a',
    workspaceId: 'ws_1',
    qrCodeId: null,
    at: 1_795_000_000_123,
    referer: 'https://news.example/x',
    country: 'de',
    userAgent: 'UA one',
    address: '203.0.113.9',
    route: 'rul_first',
  },
  {
    linkId: 'lnk_b',
    workspaceId: 'ws_1',
    qrCodeId: 'qr_1',
    at: 1_795_000_000_124,
    referer: undefined,
    country: undefined,
    userAgent: undefined,
    address: undefined,
    route: null,
  },
  {
    linkId: 'lnk_a',
    workspaceId: 'ws_2',
    qrCodeId: null,
    at: 1_795_000_000_125,
    referer: 'https://news.example/x',
    country: 'fr',
    userAgent: 'UA one',
    address: '2001:db8::1',
    route: null,
  },
  // A value equal to another field's must not be confused with it.
  {
    linkId: 'ws_1',
    workspaceId: 'ws_1',
    qrCodeId: null,
    at: 0,
    referer: '',
    country: undefined,
    userAgent: 'lnk_a',
    address: 'ws_1',
    route: 'UA one',
  },
];

const bufferOf = (events: ClickEvent[], capacity?: number) => {
  const b = new ClickBuffer(capacity);
  for (const e of events) b.push(e);
  return b;
};

/** A buffer's clicks as objects again, read back through its field accessors. */
const eventsOf = (b: ClickBuffer): ClickEvent[] =>
  Array.from({ length: b.length }, (_, i) => ({
    linkId: b.field(i, FIELD.link)!,
    workspaceId: b.field(i, FIELD.workspace)!,
    qrCodeId: b.field(i, FIELD.qrCode) ?? null,
    referer: b.field(i, FIELD.referer),
    country: b.field(i, FIELD.country),
    userAgent: b.field(i, FIELD.userAgent),
    address: b.field(i, FIELD.address),
    route: b.field(i, FIELD.route) ?? null,
    at: b.time(i),
  }));

describe('click buffer and hand-off to the writer thread', () => {
  it('gives back exactly what was recorded, in order, also after growing past its first capacity', () => {
    expect(eventsOf(bufferOf(clicks))).toEqual(clicks);
    const many = Array.from({ length: 100 }, (_, i) => ({ ...clicks[i % 4], at: i }));
    const grown = bufferOf(many, 1);
    expect(grown.length).toBe(100);
    expect(eventsOf(grown)).toEqual(many);
  });

  it('sends each distinct string of a part once (a link id once per click), and only the strings that part uses', () => {
    const b = bufferOf(clicks);
    const all = b.columns();
    // Link ids are kept as they come, one per click (most are new to the buffer: looking each up
    // cost more than it saved); every other field's strings once.
    expect([...all.strings].sort()).toEqual(
      [
        '',
        '2001:db8::1',
        '203.0.113.9',
        'rul_first',
        'UA one',
        'fr',
        'de',
        'https://news.example/x',
        'lnk_a',
        'lnk_a',
        'lnk_a',
        'lnk_b',
        'qr_1',
        'ws_1',
        'ws_1',
        'ws_2',
      ].sort(),
    );
    const links = new Set(Array.from({ length: b.length }, (_, i) => all.refs[i * 8 + FIELD.link]));
    const others = new Set(
      Array.from({ length: b.length * 8 }, (_, i) => all.refs[i]).filter((r, i) => r !== -1 && i % 8 !== FIELD.link),
    );
    expect(others.size + links.size).toBe(all.strings.length);
    expect([...b.columns(1, 2).strings].sort()).toEqual(['lnk_b', 'qr_1', 'ws_1']);
  });

  it('survives the trip through a message port in parts, appended in order', async () => {
    const { port1, port2 } = new MessageChannel();
    const got = new ClickBuffer(0);
    const received = new Promise<void>((resolve) => {
      let parts = 0;
      port2.on('message', (m) => {
        got.append(m);
        if (++parts === 3) resolve();
      });
    });
    const b = bufferOf(clicks);
    for (const [from, to] of [
      [0, 1],
      [1, 3],
      [3, 4],
    ]) {
      const c = b.columns(from, to);
      port1.postMessage(c, [c.refs.buffer, c.at.buffer]);
    }
    await received;
    port1.close();
    expect(eventsOf(got)).toEqual(clicks);
  });

  it('drops the oldest clicks on request and keeps the rest in order', () => {
    const b = bufferOf(clicks);
    b.dropOldest(2);
    expect(eventsOf(b)).toEqual(clicks.slice(2));
    b.push(clicks[0]);
    expect(eventsOf(b)).toEqual([...clicks.slice(2), clicks[0]]);
  });

  it('hands over an empty batch', () => {
    expect(eventsOf(new ClickBuffer(0).append(new ClickBuffer().columns()))).toEqual([]);
  });
});

describe('ClickRecorder while the database is unreachable', () => {
  it('keeps at most MAX_BUFFERED clicks, dropping the oldest 1% at once when full, and keeps a failed batch ahead of newer clicks', async () => {
    const { ClickRecorder, MAX_BUFFERED, DROP_WHEN_FULL } = await import('../../src/clicks/buffer');
    const { ClickWriteError } = await import('../../src/clicks/writer');
    const warnings: unknown[] = [];
    const log = { warn: (o: unknown) => warnings.push(o), error: () => undefined } as any;
    let fail = true;
    const written: number[] = [];
    const writer = {
      ready: async () => undefined,
      close: async () => undefined,
      write: async (b: ClickBuffer) => {
        if (fail) throw new ClickWriteError('database unreachable', 0);
        for (let i = 0; i < b.length; i++) written.push(b.time(i));
      },
    };
    const recorder = new ClickRecorder(writer, log, 60_000);
    const click = (at: number): ClickEvent => ({
      linkId: 'lnk_a',
      workspaceId: 'ws_1',
      qrCodeId: null,
      at,
      referer: undefined,
      country: undefined,
      userAgent: 'UA',
      address: undefined,
      route: null,
    });
    for (let i = 0; i < 10; i++) recorder.record(click(i));
    await expect(recorder.flush()).rejects.toThrow(/unreachable/);
    expect(recorder.pending).toBe(10);
    for (let i = 10; i < MAX_BUFFERED + 1; i++) recorder.record(click(i));
    expect(warnings).toHaveLength(1);
    expect(recorder.pending).toBe(MAX_BUFFERED + 1 - DROP_WHEN_FULL);
    fail = false;
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(written.length).toBe(MAX_BUFFERED + 1 - DROP_WHEN_FULL);
    expect(written[0]).toBe(DROP_WHEN_FULL);
    expect(written.at(-1)).toBe(MAX_BUFFERED);
    expect(written.every((t, i) => i === 0 || t === written[i - 1] + 1)).toBe(true);
  });
});
