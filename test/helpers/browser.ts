import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';

const INSTALL = 'No headless Chromium: set CHROMIUM_PATH, install one (Debian: apt-get install chromium) or run npm ci (the devDependency @sparticuz/chromium ships one for Linux x64)';

/**
 * A headless Chromium for the browser tests: CHROMIUM_PATH, else a chromium on PATH (Debian's),
 * else the one the devDependency `@sparticuz/chromium` ships inside the package. Without any, one
 * line saying what to install.
 */
export async function launchChromium(): Promise<Browser> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured && !executable(configured)) throw new Error(`CHROMIUM_PATH (${configured}) is not an executable file`);
  const system = configured || onPath('chromium') || onPath('chromium-browser');
  if (system) return chromium.launch({ executablePath: system, args: ['--no-sandbox'] });
  const packaged = await packagedChromium();
  return chromium.launch({
    executablePath: packaged.executable,
    args: ['--no-sandbox', '--no-zygote', '--disable-gpu'],
    env: { ...process.env, ...packaged.env },
  });
}

function onPath(command: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, command))
    .find(executable);
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `@sparticuz/chromium` unpacks its Chromium into the temporary directory. It is built for Amazon
 * Linux and needs NSS there; the package's own copy of those libraries (al2023.tar.br, unpacked
 * beside it) serves a machine without them, and its fonts one without any.
 */
async function packagedChromium(): Promise<{ executable: string; env: Record<string, string> }> {
  let packaged: { executablePath(): Promise<string> };
  try {
    packaged = (await import('@sparticuz/chromium')).default;
  } catch {
    throw new Error(INSTALL);
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(INSTALL);
  const executable = await packaged.executablePath();
  const archive = packagedFile(new URL(import.meta.resolve('@sparticuz/chromium')).pathname, path.join('bin', 'al2023.tar.br'));
  const libraries = path.join(tmpdir(), 'zaakregister-chromium-libraries');
  if (!existsSync(libraries)) {
    const unpacking = `${libraries}-${process.pid}`;
    mkdirSync(unpacking, { recursive: true });
    try {
      execFileSync('tar', ['-x', '-C', unpacking], { input: brotliDecompressSync(readFileSync(archive)) });
      renameSync(unpacking, libraries);
    } finally {
      rmSync(unpacking, { recursive: true, force: true }); // left only when another run unpacked them first
    }
  }
  return { executable, env: { LD_LIBRARY_PATH: path.join(libraries, 'lib'), FONTCONFIG_PATH: path.join(tmpdir(), 'fonts') } };
}

/** `relative` in the nearest directory above `entry` (a package's entry point) that has it. */
function packagedFile(entry: string, relative: string): string {
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, relative))) return path.join(dir, relative);
  }
  throw new Error(INSTALL);
}
