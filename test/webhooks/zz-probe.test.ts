import { expect, it } from 'vitest';
import { startReceiver, startDeliveringServer, seedSubscription, seedDelivery, waitForDelivery, settled } from '../support/receiver';
it('probe', async () => {
  const r = await startReceiver();
  const s = await startDeliveringServer('sqlite', { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: '0.01' } });
  const knex = s.services.db.knex;
  r.reply('/p', [{ status: 503 }]);
  const sub = await seedSubscription(knex, s.services.masterKey, { url: r.url('/p'), variant: 'B' });
  const id = await seedDelivery(knex, sub);
  const row = await waitForDelivery(knex, id, settled, 30000);
  const t = r.to('/p').map(q => q.receivedAt);
  console.log('gaps', t.slice(1).map((x, i) => x - t[i]));
  console.log(row.attemptRows.map((a: any) => [a.started_at - t[0], a.finished_at - t[0]]));
  await s.stop(); await r.close();
});
