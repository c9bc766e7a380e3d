// The image's HEALTHCHECK (Dockerfile): exits 0 when this container's service answers
// GET /healthz with 200 within 4 s, 1 otherwise. It asks over HTTPS unless TLS=off, as `serve`
// listens, and accepts the service's own certificate: the request never leaves the container.
import http from 'node:http';
import https from 'node:https';

const tls = !['off', '0', 'false', 'no'].includes(String(process.env.TLS ?? '').toLowerCase());
const request = (tls ? https : http).get(
  {
    host: '127.0.0.1',
    port: Number(process.env.PORT || 8443),
    path: '/healthz',
    rejectUnauthorized: false,
    timeout: 4000,
  },
  (res) => {
    res.resume();
    process.exit(res.statusCode === 200 ? 0 : 1);
  },
);
request.on('timeout', () => request.destroy(new Error('timed out')));
request.on('error', (err) => {
  console.error(`healthcheck: ${err.message}`);
  process.exit(1);
});
