// Loaded into the service by bench/soak.ts with NODE_OPTIONS="--import <this file>": measures
// the service process's own event loop and answers the bench over the IPC channel it was started
// with. Nothing in src/ knows about it; without an IPC channel it does nothing.
//
// Protocol: the bench sends { type: 'soak-sample' }; the probe answers { type: 'soak-sample',
// ... } with the event-loop delay since the previous sample (then starts a new histogram), the
// event-loop utilisation over the same interval and process.memoryUsage().
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

if (typeof process.send === 'function' && process.env.SOAK_PROBE === '1') {
  // The histogram records how late a timer of this interval fires, interval included: an idle
  // loop reads about RESOLUTION_MS. The bench subtracts it.
  const RESOLUTION_MS = 10;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let elu = performance.eventLoopUtilization();
  const ms = (ns) => ns / 1e6;

  process.on('message', (message) => {
    if (message?.type !== 'soak-sample') return;
    const now = performance.eventLoopUtilization();
    const interval = performance.eventLoopUtilization(now, elu);
    elu = now;
    const memory = process.memoryUsage();
    const sample = {
      type: 'soak-sample',
      resolutionMs: RESOLUTION_MS,
      count: delay.count,
      p50: ms(delay.percentile(50)),
      p99: ms(delay.percentile(99)),
      max: ms(delay.max),
      utilization: interval.utilization,
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
    };
    delay.reset();
    process.send(sample);
  });
  // The channel must not keep the service alive (adding the listener referenced it).
  process.channel?.unref();
}
