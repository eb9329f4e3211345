// Part of `npm run build`: tsc emits only JavaScript, so every other file under src/ (SQL
// migrations, the dashboard's CSS and JS) is copied to the same place under dist/, where the
// built code looks for it (next to the module, through import.meta.url). A file already
// there with the same bytes is left alone, so a process reading it meanwhile never sees a
// half-written copy.
import { cpSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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
// A migration renamed or removed in src/ must not stay in dist/: the built CLI applies every
// SQL file it finds there (a stale copy of a renamed one would be applied twice).
const migrations = path.join(dist, 'db', 'migrations');
let removed = 0;
if (existsSync(migrations)) {
  for (const name of readdirSync(migrations)) {
    if (name.endsWith('.sql') && !existsSync(path.join(src, 'db', 'migrations', name))) {
      rmSync(path.join(migrations, name));
      removed++;
    }
  }
}
if (removed > 0) console.log(`assets: ${removed} stale migration(s) removed from dist/`);
