/**
 * What the CLI prints and how it exits. Every command prints a table (or a few lines) for
 * people and, with --json, one JSON document (or one JSON line per event for the
 * streaming commands) for scripts. Exit codes scripts can rely on: EXIT below.
 */
import { ApiError, ConnectionError, TimeoutError } from '../errors.js';
import { StreamClosedError } from '../events/stream.js';

export const EXIT = {
  OK: 0,
  /** The service refused the request (400, 409, 422, …) or another failure. */
  FAILED: 1,
  /** Wrong usage: an unknown command or option, a missing or malformed argument. */
  USAGE: 2,
  /** No key, or the key is refused or may not do this (401, 403). */
  AUTH: 3,
  /** Not found, or another wallet's (404). */
  NOT_FOUND: 4,
  /** The service is unreachable or unavailable (connection refused, timeout, 5xx, 429 after retries). */
  UNAVAILABLE: 5,
  /** A confirmation was declined (withdraw without --yes). */
  DECLINED: 6,
} as const;

/** An error the CLI reports in one line, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.FAILED,
  ) {
    super(message);
  }
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403) return EXIT.AUTH;
    if (err.status === 404) return EXIT.NOT_FOUND;
    if (err.status === 429 || err.status >= 500) return EXIT.UNAVAILABLE;
    return EXIT.FAILED;
  }
  if (err instanceof StreamClosedError) return err.reason === 'key_revoked' ? EXIT.AUTH : EXIT.FAILED;
  if (err instanceof ConnectionError || err instanceof TimeoutError) return EXIT.UNAVAILABLE;
  return EXIT.FAILED;
}

/** The error as scripts get it with --json (on stderr). */
export function errorJson(err: unknown): Record<string, unknown> {
  if (err instanceof ApiError) {
    return { error: err.code, status: err.status, message: err.message, requestId: err.requestId, details: err.details };
  }
  return { error: err instanceof CliError ? 'CLI_ERROR' : (err as Error).name, message: (err as Error).message };
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const details = err.details.map((d) => `\n  ${d.field}: ${d.message}`).join('');
    return `error: ${err.code} (${err.status}): ${err.message.replace(/^\S+ \S+: \d+ \S+: /, '')}${details}${err.requestId ? `\n  request id: ${err.requestId}` : ''}`;
  }
  return `error: ${(err as Error).message}`;
}

export interface Out {
  json: boolean;
  /** The command's result: JSON with --json, else `text()`. */
  result(value: unknown, text: () => string): void;
  /** One line of a stream: a JSON line with --json, else the text. */
  line(value: unknown, text: string): void;
  /** Messages for people (stderr: never mixed into what scripts read). */
  info(text: string): void;
}

export function output(json: boolean, stdout = process.stdout, stderr = process.stderr): Out {
  return {
    json,
    result: (value, text) => stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`),
    line: (value, text) => stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`),
    info: (text) => stderr.write(`${text}\n`),
  };
}

/** Columns padded to the widest cell; `-` for empty cells. */
export function table(rows: Record<string, unknown>[], columns: [key: string, title: string][]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const cells = rows.map((r) =>
    columns.map(([k]) => cell(k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown> | null)?.[p], r))),
  );
  const widths = columns.map(([, title], i) => Math.max(title.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  return [line(columns.map(([, t]) => t.toUpperCase())), ...cells.map(line)].join('\n');
}

/** `key: value` lines for one object. */
export function fields(obj: Record<string, unknown>, keys: [key: string, title: string][]): string {
  const width = Math.max(...keys.map(([, t]) => t.length));
  return keys
    .map(([k, t]) => {
      const v = k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown> | null)?.[p], obj);
      return `${t.padEnd(width)}  ${v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
    })
    .join('\n');
}
