import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const headers = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', 'X-Forwarded-Proto': 'https', Host: 'localhost' };
const url = 'http://127.0.0.1:39999';
const paths = Array.from({ length: 1000 }, (_, i) => `/p${i}`);
const suffix = ' HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n' + Object.entries(headers).filter(([k]) => k !== 'Host').map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
const variants = {
  setup: { requests: [{ method: 'GET', setupRequest: (r) => { r.path = paths[(Math.random() * 1000) | 0]; return r; } }] },
  override: { setupClient: (c) => { c.getRequestBuffer = () => Buffer.from('GET ' + paths[(Math.random() * 1000) | 0] + suffix, 'latin1'); } },
  plain: {},
};
for (let round = 0; round < 3; round++)
for (const [name, extra] of Object.entries(variants)) {
    const r = await autocannon({ url, connections: 32, duration: 4, headers, ...extra });
    console.log(name, Math.round(r.requests.total / r.duration), r['3xx']);
}
