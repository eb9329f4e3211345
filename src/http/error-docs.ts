/**
 * `npm run docs:errors`: rewrites the error table of docs/api.md from the catalogue
 * (test/errors/catalogue.test.ts fails while the two differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withErrorTable } from './error-catalogue.js';

const file = new URL('../../docs/api.md', import.meta.url);
const before = readFileSync(file, 'utf8');
const after = withErrorTable(before);
if (after !== before) writeFileSync(file, after);
console.log(after === before ? 'docs/api.md: error table up to date' : 'docs/api.md: error table rewritten');
