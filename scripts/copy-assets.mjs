// Part of `npm run build`: tsc emits only JavaScript, so every other file under src/ (SQL
// migrations, the dashboard's CSS and JS) is copied to the same place under dist/, where the
// built code looks for it (next to the module, through import.meta.url).
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
let copied = 0;
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const from = path.join(entry.parentPath ?? entry.path, entry.name);
  cpSync(from, path.join(dist, path.relative(src, from)));
  copied++;
}
console.log(`copied ${copied} asset files from src/ to dist/`);
