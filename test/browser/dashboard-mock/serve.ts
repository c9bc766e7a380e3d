// Opens the dashboard on Prism's mock of its contract, for a person to click through:
//   npx tsx test/browser/dashboard-mock/serve.ts     (then open the printed address)
// Builds src/web into a temporary folder, starts `prism mock generated/dashboard.json --dynamic`
// and serves the app at /app/ with /app/api forwarded to it. Prism keeps no state and its
// session is random: open /app/ and pick a workspace from the switcher. Ctrl-C stops everything.
import fs from 'node:fs';
import { buildDashboard, startAppServer, startPrismMock } from './harness';

const { dir, report } = await buildDashboard();
process.stdout.write(report);
const prism = await startPrismMock(process.env.PRISM_SEED);
const app = await startAppServer(dir, prism.url);
console.log(`\nPrism: ${prism.url}\nDashboard: ${app.origin}/app/\n`);

const stop = async () => {
  await app.stop();
  await prism.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  if (app.violations.length) console.log(`Requests Prism found against the contract:\n${app.violations.join('\n')}`);
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
