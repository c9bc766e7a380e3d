// One Stoplight Prism child process (`prism proxy` or `prism mock`), listening on a free port on
// 127.0.0.1: started, waited for until it prints where it listens, and stopped. The contract
// checker (prism.ts) and the dashboard's mock harness both run Prism this way.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const PRISM_CLI = require.resolve('@stoplight/prism-cli/dist/index.js');

export interface PrismChild {
  /** Where Prism listens (http://127.0.0.1:port). */
  url: string;
  /** Prism's recent log output, for failure messages. */
  logs(): string;
  /** SIGTERM, then SIGKILL if Prism has not exited 3 s later. */
  stop(): Promise<void>;
}

/**
 * Runs `prism <command> <args...> --host 127.0.0.1 --port 0 --multiprocess=false` and resolves
 * once it listens. If Prism exits first or does not listen within `timeoutMs`, it is killed and
 * the promise rejects with its log. The child is killed when this process exits, whatever happens.
 */
export async function startPrismChild(
  command: 'proxy' | 'mock',
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<PrismChild> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const cli = [PRISM_CLI, command, ...args, '--host', '127.0.0.1', '--port', '0', '--multiprocess=false'];
  const child: ChildProcess = spawn(process.execPath, cli, {
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Prism did not start within ${timeoutMs} ms:\n${log}`)),
        timeoutMs,
      );
      const onData = () => {
        const m = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(log);
        if (m) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          resolve(m[1]);
        }
      };
      child.stdout!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`Prism exited (${code ?? signal}) before listening:\n${log}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    process.off('exit', killOnExit);
    throw err;
  }

  return {
    url,
    logs: () => log,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
