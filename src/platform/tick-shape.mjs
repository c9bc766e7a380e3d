// Keeps V8's maps of Node's process.nextTick objects alive for the life of the process.
//
// Why (issue 26, bench/README.md "Redirect path"): each process.nextTick builds its queue entry
// with an object literal with computed keys ({ [async_id_symbol], [trigger_async_id_symbol],
// callback, args }). V8 records, per key, the map the object had before it (a "monomorphic"
// slot) and compiles each key into a plain store. Those maps live only while some tick object
// does. When the service is idle (the start-up preload of the resident tier, a quiet night), a
// full collection finds no tick object alive and frees them; the next tick makes new maps, the
// slots see a map that is not the one they recorded, and V8 marks them megamorphic for good. From
// then on every nextTick (Node's streams and HTTP code call it several times per request) adds
// three calls into V8's runtime (Runtime_DefineKeyedOwnPropertyInLiteral): 8–10% of the main
// thread's samples under `perf`, about 5 µs per redirect. Whether a process was hit depended on
// when its collections ran, so identical code measured 52% of bare Node in one run and 66% in
// the next (warm set, a million links preloaded).
//
// One tick object held here keeps its map, and through the map's back pointers the maps before
// it, so the transitions stay and the slots stay monomorphic. It must run before the process's
// first full collection, so bin/shortlink.mjs calls it before it loads anything else.
// test/unit/tick-shape.test.ts shows the slots going megamorphic without it and staying
// monomorphic with it, on the Node that runs the tests.
//
// Plain JavaScript, like the entry that imports it: it runs before tsx is registered.
import { executionAsyncResource } from 'node:async_hooks';

let kept;

/** Holds one process.nextTick queue entry for good (see above). Idempotent. */
export function keepTickObjectMaps() {
  if (kept !== undefined) return;
  kept = null;
  // Inside a nextTick callback the current async resource is the tick's own queue entry.
  process.nextTick(() => {
    kept = executionAsyncResource();
  });
}
