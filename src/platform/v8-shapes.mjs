// Keeps the V8 object layouts of Node's per-request objects fast for the life of the process.
// bin/shortlink.mjs calls settleNodeObjectShapes() before it loads anything else.
//
// Why: a process where V8 ran full collections while nothing was happening (the start-up preload
// of a million links, a quiet start) stayed slower for its whole life than one where it did not
// (the figures: docs/performance.md and bench/README.md), because of two V8 behaviours:
//
// 1. process.nextTick builds its queue entry with an object literal with computed keys
//    ({ [async_id_symbol], [trigger_async_id_symbol], callback, args }). V8 records, per key,
//    the map the object had before it, and compiles each key into a plain store. Those maps live
//    only while some tick object does. A full collection with no tick object alive frees them;
//    the next tick makes new maps, the recorded slots see a map that is not the one they recorded,
//    and V8 marks them megamorphic for good. From then on every nextTick (Node's streams and HTTP
//    code call it several times per request) makes three calls into V8's runtime
//    (Runtime_DefineKeyedOwnPropertyInLiteral).
//    One tick object kept here keeps its map, and through the map's back pointers the maps
//    before it.
//
// 2. V8 sizes a constructor's instances by "slack tracking": after its first seven instances it
//    shrinks the room for fields inside the object to what the live instances used. If a full
//    collection ran between those instances (a response to a health check, then an idle second),
//    no instance's map is alive, and V8 leaves room for none. http.ServerResponse's constructor
//    then puts 30-odd fields outside the object, and V8 turns an object into a dictionary when a
//    store by key (this[kSymbol] = ...) finds more than 12 there: every response of the process
//    becomes a dictionary as it is built (Runtime_AddDictionaryProperty, NameDictionary::Rehash,
//    megamorphic loads). net.Socket and tls.TLSSocket are sized the same
//    way. Building sixteen of each here, one after the other with no collection between, and
//    filling each one's room, ends their tracking with the most room V8 gives.
//
// test/unit/v8-shapes.test.ts shows both on the Node that runs the tests: without this, the slots
// go megamorphic and the objects become dictionaries; with it, neither.
//
// Plain JavaScript, like the entry that imports it: it runs before tsx is registered.
import { executionAsyncResource } from 'node:async_hooks';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';

let kept;

/** Holds one process.nextTick queue entry for good (1 above). Idempotent. */
export function keepTickObjectMaps() {
  if (kept !== undefined) return;
  kept = null;
  // Inside a nextTick callback the current async resource is the tick's own queue entry.
  process.nextTick(() => {
    kept = executionAsyncResource();
  });
}

// More than the seven instances V8's slack tracking looks at, so it ends here whatever the version.
const INSTANCES = 16;
// More fields than any of these constructors leaves room for: each instance fills its room.
const FILL = 64;

/** The per-request (and per-connection) objects whose layout would otherwise depend on timing (2 above). */
export const SETTLED_CONSTRUCTORS = {
  'http.ServerResponse': () => new http.ServerResponse(new http.IncomingMessage(null)),
  'http.IncomingMessage': () => new http.IncomingMessage(null),
  'net.Socket': () => new net.Socket(),
  'tls.TLSSocket': (context) => {
    const socket = new tls.TLSSocket(null, { isServer: true, secureContext: context });
    socket.destroy();
    return socket;
  },
};

let settled = false;

/** Ends V8's slack tracking of SETTLED_CONSTRUCTORS with full-sized instances (2 above). Idempotent. */
export function settleInstanceLayouts() {
  if (settled) return;
  settled = true;
  const context = tls.createSecureContext();
  for (const make of Object.values(SETTLED_CONSTRUCTORS)) {
    // Kept in an array until all are built, so that a collection in between frees none of them.
    const instances = [];
    for (let i = 0; i < INSTANCES; i++) {
      const object = make(context);
      for (let f = 0; f < FILL; f++) object[`__settle${f}`] = 0;
      instances.push(object);
    }
  }
}

/** Both of the above: the first thing the shortlink command does. */
export function settleNodeObjectShapes() {
  keepTickObjectMaps();
  settleInstanceLayouts();
}
