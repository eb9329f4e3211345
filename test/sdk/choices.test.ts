/**
 * The SDK's command line offers the same transaction filters as the API: a status or a type
 * the service knows must be one `wallet tx list` accepts, and none that it does not.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../packages/sdk/src/cli/program.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../src/transaction-types.js';

/** The shape of commander's Command this test reads (the SDK has commander of its own). */
interface Cmd {
  name(): string;
  readonly commands: readonly Cmd[];
  readonly options: readonly { long?: string; argChoices?: string[] }[];
}

function find(program: Cmd, path: string[]): Cmd {
  let at = program;
  for (const name of path) {
    const next = at.commands.find((c) => c.name() === name);
    if (!next) throw new Error(`no command ${path.join(' ')}`);
    at = next;
  }
  return at;
}

const choicesOf = (command: Cmd, flag: string) => command.options.find((o) => o.long === flag)?.argChoices;

describe('wallet tx list filters', () => {
  it("offer every status and type of the API's transaction list, and only those", () => {
    const list = find(buildProgram() as unknown as Cmd, ['tx', 'list']);
    expect(choicesOf(list, '--status')).toEqual([...TRANSACTION_STATUSES]);
    expect(choicesOf(list, '--type')).toEqual([...TRANSACTION_TYPES]);
  });
});
