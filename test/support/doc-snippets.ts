/**
 * The SDK's TypeScript examples in README.md, docs/*.md and packages/sdk/README.md (`ts`
 * code blocks that import the SDK or use its `client`), each made into a module a
 * TypeScript project can check against the built package: the block's imports on top, the
 * rest in an async function, and a declaration for each name the prose leaves to the
 * reader (`walletId`, `client`, `rawBody`, ...) that the block does not declare itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { docFiles } from './doc-commands.js';

export interface Snippet {
  where: string;
  /** A TypeScript module (ES module syntax). */
  module: string;
}

/** The names examples use without declaring them, and their types. */
const GIVEN: Record<string, string> = {
  client: 'Sdk__.WalletClient',
  walletId: 'string',
  assetId: 'string',
  to: 'string',
  body: "Parameters<Sdk__.WalletClient['withdrawals']['create']>[1]",
  rawBody: 'string',
  req: "import('node:http').IncomingMessage",
  notifyTreasury: '() => void',
  queueForProcessing: '(id: string, event: string, data: unknown) => void',
};

const isSdkExample = (code: string) => code.includes("'@stablecoin-wallet/sdk") || /\bclient\./.test(code);

export function sdkExamples(root: string): Snippet[] {
  const out: Snippet[] = [];
  for (const file of [...docFiles(root), 'packages/sdk/README.md']) {
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
    let block: string[] | null = null;
    let start = 0;
    for (const [i, raw] of lines.entries()) {
      if (block === null) {
        if (/^\s*```\s*(ts|typescript)\s*$/.test(raw)) {
          block = [];
          start = i + 1;
        }
        continue;
      }
      if (!/^\s*```\s*$/.test(raw)) {
        block.push(raw);
        continue;
      }
      const code = block.join('\n');
      block = null;
      if (isSdkExample(code)) out.push({ where: `${file}:${start}`, module: asModule(code) });
    }
  }
  return out;
}

function asModule(code: string): string {
  const lines = code.split('\n');
  const imports = lines.filter((l) => /^import\s/.test(l));
  const rest = lines.filter((l) => !/^import\s/.test(l));
  const declared = (name: string) =>
    new RegExp(`\\b(const|let|var|function|class)\\s+${name}\\b|^import\\s.*\\b${name}\\b`, 'm').test(code) ||
    new RegExp(`\\bconst\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(code);
  const given = Object.entries(GIVEN)
    .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code) && !declared(name))
    .map(([name, type]) => `declare const ${name}: ${type};`);
  return [
    "import type * as Sdk__ from '@stablecoin-wallet/sdk';",
    ...imports,
    ...given,
    'export async function example(): Promise<void> {',
    ...rest,
    '}',
    '',
  ].join('\n');
}
