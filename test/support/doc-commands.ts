/**
 * The service's CLI commands as README.md and docs/*.md show them: lines of sh/bash code
 * blocks (a `# or: …` comment line counts as an alternative command) and inline code spans
 * (also those running over a line break) that run the CLI (`npm start …`, `npm run migrate`,
 * `npm run build`, `node dist/main.js …`, `wallet-service …`). Installing (`npm install`, `npm ci`) and `npm test` parts of a line
 * are left out: the test runs in an installed checkout.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface DocCommand {
  /** The command line as written (continuations joined, trailing comment removed). */
  text: string;
  where: string;
}

const CLI = /(^|[\s|&;(])(npm start(?=\s|$)|npm run (migrate|build)(?=\s|$|;|&)|node dist\/main\.js(?=\s|$)|wallet-service(?=\s|$))/;
const NOT_RUN = /^\s*npm (install|ci|test)\b/;

export function docFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => path.join('docs', f));
  return ['README.md', ...docs];
}

export function extractCommands(root: string): DocCommand[] {
  const out: DocCommand[] = [];
  for (const file of docFiles(root)) {
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
    let fence: string | null = null;
    let pending = '';
    let open: string | null = null; // an inline code span not yet closed on its line
    for (const [i, raw] of lines.entries()) {
      const where = `${file}:${i + 1}`;
      const opening = /^\s*```\s*([\w-]*)\s*$/.exec(raw);
      if (fence === null && opening) {
        fence = opening[1] ?? '';
        continue;
      }
      if (fence !== null && /^\s*```\s*$/.test(raw)) {
        fence = null;
        continue;
      }
      if (fence !== null) {
        if (!['sh', 'bash', 'shell', 'console'].includes(fence)) continue;
        let line = raw.trim().replace(/^\$ /, '');
        if (line.endsWith('\\')) {
          pending += `${line.slice(0, -1)} `;
          continue;
        }
        line = pending + line;
        pending = '';
        const alternative = /^#\s*or:\s*(.+)$/.exec(line);
        if (line.startsWith('#') && !alternative) continue;
        add(out, alternative ? alternative[1]! : line.replace(/\s+#\s.*$/, ''), where);
        continue;
      }
      // A code span may run on over a line break (Markdown joins it with a space).
      const text: string = open === null ? raw : `${open} ${raw}`;
      if (!raw.trim()) {
        open = null;
        continue;
      }
      let end = 0;
      for (const m of text.matchAll(/`([^`]+)`/g)) {
        add(out, m[1]!, where);
        end = m.index + m[0].length;
      }
      const rest: string = text.slice(end);
      open = rest.includes('`') ? rest.slice(rest.indexOf('`')) : null;
    }
  }
  return out;
}

function add(out: DocCommand[], line: string, where: string): void {
  const kept = line
    .split('&&')
    .map((s) => s.trim())
    .filter((s) => s && !NOT_RUN.test(s));
  if (!kept.some((s) => CLI.test(s))) return;
  const text = kept.join(' && ');
  if (!out.some((c) => c.text === text)) out.push({ text, where });
}

/** The CLI's arguments in a command line (after `npm start --`, `node dist/main.js`, ...). */
export function cliArgs(text: string): { kind: 'cli' | 'build'; args: string[] } {
  const m = CLI.exec(text)!;
  if (m[3] === 'build') return { kind: 'build', args: [] };
  if (m[3] === 'migrate') return { kind: 'cli', args: ['migrate'] };
  let rest = text
    .slice(m.index + m[0].length)
    .split(/\||&&|;/)[0]!
    .trim();
  if (m[2] === 'npm start') rest = rest.startsWith('--') ? rest.slice(2).trim() : '';
  return { kind: 'cli', args: shellWords(rest) };
}

/** Splits on blanks, honouring single and double quotes. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/** A command that runs until stopped: `start` (any roles) or a role alone, or no command. */
export const longRunning = (args: string[]): boolean => args.length === 0 || ['start', 'api', 'worker', 'indexer'].includes(args[0]!);

/** A `wallet …` line (the SDK's command-line client) of a sh/bash code block. */
export interface ClientCommand extends DocCommand {
  /** Written with a trailing `&`: it runs in the background while the next lines run. */
  background: boolean;
}

const CLIENT = /^(npx )?wallet(?=\s|$)/;

/**
 * The `wallet …` lines of README.md's and docs/*.md's sh/bash code blocks, in document order
 * (the README's quick start first): the commands a reader is told to run. Mentions in
 * running text (inline code) are references to these, not further commands.
 */
export function extractClientCommands(root: string): ClientCommand[] {
  const out: ClientCommand[] = [];
  for (const file of docFiles(root)) {
    let fence: string | null = null;
    let pending = '';
    for (const [i, raw] of readFileSync(path.join(root, file), 'utf8').split('\n').entries()) {
      const opening = /^\s*```\s*([\w-]*)\s*$/.exec(raw);
      if (fence === null) {
        if (opening) fence = opening[1] ?? '';
        continue;
      }
      if (/^\s*```\s*$/.test(raw)) {
        fence = null;
        continue;
      }
      if (!['sh', 'bash', 'shell', 'console'].includes(fence)) continue;
      const line = raw.trim().replace(/^\$ /, '');
      if (line.endsWith('\\')) {
        pending += `${line.slice(0, -1)} `;
        continue;
      }
      const text = (pending + line).replace(/\s+#\s.*$/, '').trim();
      pending = '';
      if (!CLIENT.test(text)) continue;
      const background = text.endsWith('&') && !text.endsWith('&&');
      out.push({ text: background ? text.slice(0, -1).trim() : text, where: `${file}:${i + 1}`, background });
    }
  }
  return out;
}

/**
 * The lines of the first sh code block of `file` that contains `marker` (continuations
 * joined, comments dropped): a sequence meant to run in one terminal, in order.
 */
export function shellBlock(root: string, file: string, marker: string): string[] {
  const blocks: string[][] = [];
  let current: string[] | null = null;
  for (const raw of readFileSync(path.join(root, file), 'utf8').split('\n')) {
    const opening = /^\s*```\s*(sh|bash)\s*$/.exec(raw);
    if (current === null) {
      if (opening) current = [];
      continue;
    }
    if (/^\s*```\s*$/.test(raw)) {
      blocks.push(current);
      current = null;
      continue;
    }
    current.push(raw);
  }
  const block = blocks.find((b) => b.some((l) => l.includes(marker)));
  if (!block) throw new Error(`${file} has no sh block with ${marker}`);
  return block
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'));
}
