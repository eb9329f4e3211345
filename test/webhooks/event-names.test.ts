import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTLE_EVENTS } from '../../src/modules/autosettlements/legs.js';
import { SALVAGE_EVENTS } from '../../src/modules/salvage/steps.js';
import { SWAP_EVENTS } from '../../src/modules/swaps/flow.js';
import { CANCELLED_EVENT, PENDING_APPROVAL_EVENT } from '../../src/modules/withdrawals/approval.js';
import { WEBHOOK_EVENTS } from '../../src/modules/webhooks/types.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(path.join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [path.join(dir, e.name)]
        : [],
  );

/** The name argument of every emitForTransaction(s) call in the source. */
function emitted(): string[] {
  const out: string[] = [];
  for (const f of files(SRC)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/(?<!async )emitForTransactions?\(\s*[^,()]+,\s*[^,()]+,\s*([^;]+?)\);/g)) out.push(m[1]!.trim());
  }
  return out;
}

describe('WEBHOOK_EVENTS: every event the source sends (the feed filters and the test trigger take these names only)', () => {
  it('holds every literal name and every named constant the emitting calls use', () => {
    const names = new Set<string>(WEBHOOK_EVENTS);
    const constants: Record<string, string[]> = {
      'SALVAGE_EVENTS.ok': [SALVAGE_EVENTS.ok],
      'SALVAGE_EVENTS.failed': [SALVAGE_EVENTS.failed],
      'SWAP_EVENTS.ok': [SWAP_EVENTS.ok],
      'SWAP_EVENTS.failed': [SWAP_EVENTS.failed],
      'SETTLE_EVENTS.ok': [SETTLE_EVENTS.ok],
      'SETTLE_EVENTS.failed': [SETTLE_EVENTS.failed],
      CANCELLED_EVENT: [CANCELLED_EVENT],
      PENDING_APPROVAL_EVENT: [PENDING_APPROVAL_EVENT],
      // staking/service.ts: `${KINDS[action].event}.success` / `.failed`
      '`${KINDS[action].event}.failed`': ['staking', 'unstaking', 'restaking', 'unstaking.withdraw'].map((k) => `${k}.failed`),
      '`${KINDS[action].event}.success`': ['staking', 'unstaking', 'restaking', 'unstaking.withdraw'].map((k) => `${k}.success`),
    };
    const calls = emitted();
    expect(calls.length).toBeGreaterThan(20);
    const unknown: string[] = [];
    for (const call of calls) {
      if (call === 'name') continue; // emitForTransaction's own forwarding
      const literals = [...call.matchAll(/'([a-z.-]+)'/g)].map((m) => m[1]!);
      const named = Object.entries(constants).flatMap(([k, v]) => (call.includes(k) ? v : []));
      if (literals.length === 0 && named.length === 0) unknown.push(call);
      for (const n of [...literals, ...named]) if (!names.has(n)) unknown.push(`${call} -> ${n}`);
    }
    expect(unknown).toEqual([]);
  });
});
