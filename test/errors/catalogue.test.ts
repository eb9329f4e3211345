/**
 * The error catalogue (src/http/error-catalogue.ts) is exhaustive and is what the API
 * answers: every code the source raises is in it, every entry is raised somewhere, each
 * status agrees with the class that carries the code (the statuses lib/errors.ts
 * documents), http/errors.ts takes its statuses from it, and docs/api.md shows it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, renderErrorTable, withErrorTable } from '../../src/http/error-catalogue.js';
import { statusOf } from '../../src/http/errors.js';
import { AppError, BusinessRuleError, ConflictError, ForbiddenError, RateLimitedError, UpstreamError } from '../../src/lib/errors.js';
import { collectEnvelopeCodes, collectErrorCodes } from './collect.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The devnet stand-ins' errors are JSON-RPC errors of their own wire, never API answers.
const collected = collectErrorCodes(root, ['src/devnet']);
const envelope = collectEnvelopeCodes(path.join(root, 'src/http/errors.ts'));
const catalogue = ERROR_CATALOGUE as Record<string, { status: number; meaning: string }>;

/** The status each class of lib/errors.ts stands for (its doc comment says it). */
const CLASS_STATUS: Record<string, number> = {
  ValidationError: 400,
  UnauthorizedError: 401,
  ForbiddenError: 403,
  NotFoundError: 404,
  ConflictError: 409,
  BusinessRuleError: 422,
  RateLimitedError: 429,
  UpstreamError: 503,
};

describe('error catalogue', () => {
  it('every code the source raises is catalogued; no code is pinned to a plain string', () => {
    expect(collected.unresolved).toEqual([]);
    expect(collected.sites.length).toBeGreaterThan(50);
    const missing = [...new Set([...collected.sites.map((s) => s.code), ...envelope])].filter((c) => !catalogue[c]);
    expect(missing).toEqual([]);
  });

  it('every catalogued code is raised somewhere (no stale entries)', () => {
    const raised = new Set([...collected.sites.map((s) => s.code), ...envelope]);
    expect(Object.keys(catalogue).filter((c) => !raised.has(c))).toEqual([]);
  });

  it("each code's status is the status of the class that carries it", () => {
    const wrong = collected.sites
      .filter((s) => CLASS_STATUS[s.cls] !== undefined && CLASS_STATUS[s.cls] !== catalogue[s.code]?.status)
      .map((s) => `${s.where}: ${s.cls} ${s.code} is ${catalogue[s.code]?.status}, the class says ${CLASS_STATUS[s.cls]}`);
    expect(wrong).toEqual([]);
  });

  it('every entry has a status from 400 to 599 and a one-line meaning', () => {
    for (const [code, e] of Object.entries(catalogue)) {
      expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.status).toBeLessThan(600);
      expect(e.meaning.length).toBeGreaterThan(10);
      expect(e.meaning).not.toMatch(/\n/);
    }
  });

  it('http/errors.ts answers with the catalogue status of each code', () => {
    for (const [code, e] of Object.entries(catalogue)) {
      // Whatever class carries it, the catalogue decides.
      for (const err of [new AppError(code, 'x'), new BusinessRuleError(code, 'x'), new ConflictError(code, 'x')]) {
        expect(statusOf(err), code).toBe(e.status);
      }
    }
    // A code outside the catalogue (never in the source: see above) falls back to its class.
    expect(statusOf(new ForbiddenError('x', 'SOME_NEW_CODE'))).toBe(403);
    expect(statusOf(new RateLimitedError('SOME_NEW_CODE', 'x', 1))).toBe(429);
    expect(statusOf(new UpstreamError('SOME_NEW_CODE', 'x'))).toBe(503);
  });

  it('docs/api.md shows the current catalogue (npm run docs:errors rewrites it)', () => {
    const doc = readFileSync(path.join(root, 'docs/api.md'), 'utf8');
    expect(doc).toContain(renderErrorTable());
    expect(withErrorTable(doc)).toBe(doc);
  });
});
