// src/platform/v8-shapes.mjs: Node's tick, response and socket objects keep fast V8 layouts after
// full collections while idle. Each case runs in a node of its own with --allow-natives-syntax
// (to read V8's state: %DebugPrint, %HasFastProperties) and --expose-gc (to collect while
// nothing is alive, as an idle service does).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const MODULE = new URL('../../src/platform/v8-shapes.mjs', import.meta.url).href;
// --no-concurrent-recompilation: nextTick is optimized when it gets hot, not whenever a background
// compile ends. A compile that ended during the idle collections kept the old maps alive a little
// longer (V8 retains the maps optimized code was built on), and under load the case without the
// kept tick object then stayed monomorphic in 2 runs out of 5.
const V8_FLAGS = ['--allow-natives-syntax', '--expose-gc', '--no-concurrent-recompilation', '--input-type=module'];

function runNode(script: string, env: Record<string, string>): string {
  const run = spawnSync(process.execPath, [...V8_FLAGS, '-e', script], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

// Busy (enough ticks that V8 records the literal's maps and optimizes nextTick), idle (full
// collections with no tick alive: V8 keeps an unused map for a couple of collections), busy
// again; then the feedback of nextTick's literal, one line per computed key.
const TICKS = `
if (process.env.SETTLE === '1') (await import(${JSON.stringify(MODULE)})).keepTickObjectMaps();
const noop = () => {};
const turn = () => new Promise((resolve) => setImmediate(resolve));
const busy = async () => { for (let k = 0; k < 50; k++) { for (let i = 0; i < 1000; i++) process.nextTick(noop); await turn(); } };
await busy();
for (let k = 0; k < 10; k++) { gc(); await turn(); }
await busy();
%DebugPrint(process.nextTick);
`;

/** The feedback states of nextTick's literal stores after busy, idle, busy. */
function literalFeedback(settle: boolean): string[] {
  const out = runNode(TICKS, { SETTLE: settle ? '1' : '0' });
  return [...out.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
}

// Each constructor's first instances built one at a time with idle collections between (a health
// check, then a quiet second, as a service starts), then one more: does it have fast properties?
const INSTANCES = `
const shapes = await import(${JSON.stringify(MODULE)});
if (process.env.SETTLE === '1') shapes.settleInstanceLayouts();
const tls = await import('node:tls');
const context = tls.createSecureContext();
const turn = () => new Promise((resolve) => setImmediate(resolve));
const fast = {};
for (const [name, make] of Object.entries(shapes.SETTLED_CONSTRUCTORS)) {
  for (let i = 0; i < 12; i++) { make(context); for (let k = 0; k < 3; k++) { gc(); await turn(); } }
  fast[name] = %HasFastProperties(make(context));
}
console.log(JSON.stringify(fast));
`;

function fastProperties(settle: boolean): Record<string, boolean> {
  return JSON.parse(
    runNode(INSTANCES, { SETTLE: settle ? '1' : '0' })
      .trim()
      .split('\n')
      .at(-1)!,
  );
}

describe('V8 layouts of Node objects (src/platform/v8-shapes.mjs)', () => {
  // The two "without" cases show the V8 behaviour worked around. If one fails after a Node
  // upgrade, V8 no longer does it and that part can go (measure with bench/redirect.ts first).
  it("without a kept tick object, collections while idle leave nextTick's literal megamorphic", () => {
    expect(literalFeedback(false)).toContain('MEGAMORPHIC');
  });

  it("with one kept, every computed key of nextTick's literal stays monomorphic", () => {
    const states = literalFeedback(true);
    expect(states.length).toBeGreaterThanOrEqual(2);
    expect(states.every((s) => s === 'MONOMORPHIC')).toBe(true);
  });

  it('without settling, responses and sockets built around idle collections are dictionaries', () => {
    const fast = fastProperties(false);
    expect(fast['http.ServerResponse']).toBe(false);
    expect(fast['net.Socket']).toBe(false);
    expect(fast['tls.TLSSocket']).toBe(false);
  });

  it('settled first, every one of them keeps fast properties', () => {
    expect(fastProperties(true)).toEqual({
      'http.ServerResponse': true,
      'http.IncomingMessage': true,
      'net.Socket': true,
      'tls.TLSSocket': true,
    });
  });

  it('is the first thing the shortlink command does, before it loads any other module', () => {
    const entry = fs.readFileSync(new URL('../../bin/shortlink.mjs', import.meta.url), 'utf8');
    const code = entry
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('//') && !line.startsWith('#!'));
    expect(code.slice(0, 2)).toEqual([
      "import { settleNodeObjectShapes } from '../src/platform/v8-shapes.mjs';",
      'settleNodeObjectShapes();',
    ]);
  });
});
