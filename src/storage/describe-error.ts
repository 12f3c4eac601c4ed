import { DatabaseConnectionError } from './postgres.js';

/** File-system failures opening a PGlite directory, in an operator's words. */
const FILE_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
};

/**
 * A start-up failure of the database as one line naming the setting it came from and the cause
 * (the CLI prints it instead of a stack); undefined for any other error.
 */
export function databaseProblem(error: unknown, setting: string): Error | undefined {
  if (error instanceof DatabaseConnectionError) return new Error(`${error.message} (set by ${setting})`, { cause: error });
  const code = (error as { code?: string }).code;
  const path = (error as { path?: string }).path;
  if (code && FILE_ERRORS[code] && path) {
    return new Error(`cannot open the database directory ${path} (set by ${setting}): ${FILE_ERRORS[code]}`, { cause: error });
  }
  return undefined;
}
