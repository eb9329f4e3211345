/**
 * The address settings as the described service's clients send them: `disableAutoSweep`
 * and `enableGaslessWithdraw` at the top level of `PATCH .../addresses/{addressId}`, besides
 * (or instead of) `configurations`. Folded into `configurations` here; the same setting
 * with two different values is a 400 naming both places.
 */
import type { Static } from '@sinclair/typebox';
import { ValidationError } from '../../lib/errors.js';
import type { UpdateAddressBody } from './schemas.js';

type Body = Static<typeof UpdateAddressBody>;
export type AddressPatchInput = Omit<Body, 'disableAutoSweep' | 'enableGaslessWithdraw'>;

const TOP_LEVEL = ['disableAutoSweep', 'enableGaslessWithdraw'] as const;

export function mergeTopLevelSettings(body: Body): AddressPatchInput {
  const { disableAutoSweep, enableGaslessWithdraw, configurations, ...rest } = body;
  const top = { disableAutoSweep, enableGaslessWithdraw };
  const merged: NonNullable<Body['configurations']> = { ...configurations };
  const issues = [];
  for (const field of TOP_LEVEL) {
    const value = top[field];
    if (value === undefined) continue;
    if (merged[field] !== undefined && merged[field] !== value) {
      issues.push(
        { field, message: `differs from configurations.${field}` },
        { field: `configurations.${field}`, message: `differs from ${field}` },
      );
    }
    merged[field] = value;
  }
  if (issues.length) throw new ValidationError('A setting is given twice with different values', issues);
  return Object.keys(merged).length > 0 || configurations !== undefined ? { ...rest, configurations: merged } : rest;
}
