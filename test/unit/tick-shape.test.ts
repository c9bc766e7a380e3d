// src/platform/tick-shape.mjs: one kept tick object keeps process.nextTick's object literal
// compiled to plain stores after full collections while idle. Each case runs in a node of its own
// with --allow-natives-syntax (to print the literal's feedback, %DebugPrint) and --expose-gc
// (to collect while no tick object is alive, as an idle service does).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const MODULE = new URL('../../src/platform/tick-shape.mjs', import.meta.url).href;

// Busy (enough ticks that V8 records the literal's maps and optimizes nextTick), idle (full
// collections with no tick alive: V8 keeps an unused map for a couple of collections), busy
// again; then the feedback of nextTick's literal, one line per computed key.
const SCRIPT = `
if (process.env.KEEP === '1') (await import(${JSON.stringify(MODULE)})).keepTickObjectMaps();
const noop = () => {};
const turn = () => new Promise((resolve) => setImmediate(resolve));
const busy = async () => { for (let k = 0; k < 50; k++) { for (let i = 0; i < 1000; i++) process.nextTick(noop); await turn(); } };
await busy();
for (let k = 0; k < 6; k++) { gc(); await turn(); }
await busy();
%DebugPrint(process.nextTick);
`;

/** The feedback states of nextTick's literal stores after busy, idle, busy. */
function literalFeedback(keep: boolean): string[] {
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', SCRIPT], {
    env: { PATH: process.env.PATH, KEEP: keep ? '1' : '0' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return [...run.stdout.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
}

describe("process.nextTick's maps (src/platform/tick-shape.mjs)", () => {
  it('without a kept tick object, collections while idle leave the literal megamorphic (the V8 behaviour worked around)', () => {
    // If this fails after a Node upgrade, V8 no longer loses the feedback and the kept object
    // can go (measure with bench/redirect.ts first).
    expect(literalFeedback(false)).toContain('MEGAMORPHIC');
  });

  it('with one kept, every computed key of the literal stays monomorphic', () => {
    const states = literalFeedback(true);
    expect(states.length).toBeGreaterThanOrEqual(2);
    expect(states.every((s) => s === 'MONOMORPHIC')).toBe(true);
  });

  it('is the first thing the shortlink command does, before it loads any other module', () => {
    const entry = fs.readFileSync(new URL('../../bin/shortlink.mjs', import.meta.url), 'utf8');
    const code = entry
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('//') && !line.startsWith('#!'));
    expect(code.slice(0, 2)).toEqual(["import { keepTickObjectMaps } from '../src/platform/tick-shape.mjs';", 'keepTickObjectMaps();']);
  });
});
