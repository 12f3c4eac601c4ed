import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs a TypeScript entry point of this repository in a child Node process (through tsx). */
export function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return Object.assign(child, { output: () => output });
}

/** Resolves with the first match of `pattern` in the child's output. */
export function waitForOutput(child: ReturnType<typeof spawnTs>, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${child.output()}`)), timeoutMs);
    const check = () => {
      const match = child.output().match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    // The output may already hold it.
    check();
    child.once('exit', () => {
      check();
      clearTimeout(timer);
      reject(new Error(`process exited before ${pattern}; output:\n${child.output()}`));
    });
  });
}

export function exitCode(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
