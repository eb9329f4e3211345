// Part of `npm run build`: tsc emits only JavaScript, so every other file under src/ (SQL
// migrations, the dashboard's CSS and JS) is copied to the same place under dist/, where the
// built code looks for it (next to the module, through import.meta.url). A file already
// there with the same bytes is left alone, so a process reading it meanwhile never sees a
// half-written copy.
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
let copied = 0;
let same = 0;
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const from = path.join(entry.parentPath ?? entry.path, entry.name);
  const to = path.join(dist, path.relative(src, from));
  if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) {
    same++;
    continue;
  }
  cpSync(from, to);
  copied++;
}
console.log(`assets: ${copied} copied from src/ to dist/, ${same} already there`);
