#!/usr/bin/env node
// The `shortlink` command: serve and the operator commands, run from the compiled JavaScript in
// dist/ (`npm run build`, which `npm ci` runs). SHORTLINK_FROM_SOURCE=1 runs the TypeScript
// sources through tsx instead: development and the tests.
// First, before any module is loaded: fixes the V8 layouts of Node's tick, response and socket
// objects, which full collections while idle would otherwise leave slow for the life of the
// process (src/platform/v8-shapes.mjs says how).
import { settleNodeObjectShapes } from '../src/platform/v8-shapes.mjs';
settleNodeObjectShapes();
if (process.env.SHORTLINK_FROM_SOURCE === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/start/cli.ts');
} else {
  const entry = new URL('../dist/src/start/cli.js', import.meta.url);
  try {
    await import(entry.href);
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes(entry.pathname)) {
      process.stderr.write(
        'shortlink: dist/ is not built; run `npm run build` (npm ci does), or set SHORTLINK_FROM_SOURCE=1 to run the sources\n',
      );
      process.exit(2);
    }
    throw err;
  }
}
