/** A plain object of named values (no array, no null): settings, options and JSON bodies are read as one. */
export const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
