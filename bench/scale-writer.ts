// One writer process of bench/scale.ts: the service's click writer (InlineClickWriter, what the
// writer thread of every `serve` process runs) writing back-to-back flushes of --flush clicks to
// one Postgres database for --seconds, as an instance under more traffic than it can flush would
// (or, with --rate, a flush of that many clicks every second, as an instance at that many visits).
// `--floor`: the same clicks as rows by COPY into `scale_floor` (no index, no counts), the floor
// any row-per-click store pays. Sends { clicks, ms[], first, last } to its parent and exits.
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/knex';
import { InlineClickWriter, toStoredClicks } from '../src/clicks/writer';
import { ClickBuffer } from '../src/clicks/buffer';
import { copyField, copyRows } from '../src/db/pg-copy';
import { prng } from './seed-analytics';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    seconds: { type: 'string', default: '20' },
    flush: { type: 'string', default: '5000' },
    links: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    floor: { type: 'boolean', default: false },
    /** Clicks a second: a flush of that many every second, as `serve` flushes (CLICK_FLUSH_MS); 0, back to back. */
    rate: { type: 'string', default: '0' },
  },
});

const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
];
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR', undefined];
const REFERERS = ['https://news.example.org/item', 'https://social.example.com/p/1', undefined];
/** The bench's links: `lnk_scale` and ten digits, in the workspace `wsp_scale` (bench/scale.ts). */
export const scaleLinkId = (n: number) => `lnk_scale${String(n).padStart(10, '0')}`;

async function main() {
  const rate = Number(args.rate);
  const flush = rate > 0 ? rate : Number(args.flush);
  const links = Number(args.links);
  const rand = prng(Number(args.seed));
  const db = openDatabase(args.url!);
  const writer = new InlineClickWriter(db.knex, 'postgres', []);
  const batch = () => {
    const buffer = new ClickBuffer(flush);
    const at = Date.now();
    for (let i = 0; i < flush; i++) {
      buffer.push({
        linkId: scaleLinkId(Math.floor(rand() * links)),
        workspaceId: 'wsp_scale',
        qrCodeId: null,
        at,
        referer: REFERERS[i % REFERERS.length],
        country: COUNTRIES[i % COUNTRIES.length],
        userAgent: UAS[i % UAS.length],
        address: undefined,
        route: null,
      });
    }
    return buffer;
  };
  const ms: number[] = [];
  let clicks = 0;
  const first = Date.now();
  const until = first + Number(args.seconds) * 1000;
  while (Date.now() < until) {
    const b = batch();
    const t0 = performance.now();
    if (args.floor) {
      const rows = toStoredClicks(b);
      await db.knex.transaction((trx) =>
        copyRows(
          trx,
          'COPY scale_floor (workspace_id, link_id, occurred_at, country, device, browser, os) FROM STDIN',
          rows,
          (r) =>
            `${copyField(r.workspace_id)}\t${copyField(r.link_id)}\t${r.occurred_at}\t${copyField(r.country)}\t${copyField(r.device)}\t${copyField(r.browser)}\t${copyField(r.os)}\n`,
          5_000,
        ),
      );
    } else await writer.write(b);
    ms.push(performance.now() - t0);
    clicks += flush;
    const wait = 1000 - (performance.now() - t0);
    if (rate > 0 && wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const last = Date.now();
  await db.knex.destroy();
  process.send!({ clicks, ms, first, last }, () => process.exit(0));
}

void main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
