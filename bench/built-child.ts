/**
 * A benchmark child process that runs the service as the deploy recipes do: plain `node` on
 * the compiled build (`dist/`, `node dist/main.js start indexer` in deploy/), not TypeScript
 * compiled as it loads. Under `--import tsx` the loader's hooks run in a thread of their own
 * (a second V8 isolate) and every module keeps its source map: about 40-55 MB of RSS that a
 * deployed indexer does not carry (measured: `node` importing the service graph, 115-117 MB;
 * the same under tsx, 153-177 MB, Node 26 and 20).
 *
 * `builtChild(entry)` runs `npm run build` once per benchmark process (so dist/ is this
 * checkout's code), then transpiles the child script and the bench files it imports into
 * `.cache/bench/`, each import of `../src/x.js` pointing at `../../dist/x.js`. Only the bench's
 * own files are transpiled one by one (types erased, nothing bundled): the service's modules
 * are the build's, loaded as in production. Returns the script to run with `node`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = path.join(root, 'bench');
const outDir = path.join(root, '.cache', 'bench');
let built = false;

/** Relative imports of a bench file (`./x.js` or `../src/...`), from its import/export statements. */
function relativeImports(source: string): string[] {
  return [...source.matchAll(/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
}

export function builtChild(entry: string): string {
  if (!built) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    built = true;
  }
  mkdirSync(outDir, { recursive: true });
  const todo = [path.resolve(entry)];
  const done = new Set<string>();
  while (todo.length) {
    const file = todo.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    if (path.dirname(file) !== benchDir) throw new Error(`builtChild: ${file} is not in bench/`);
    const source = readFileSync(file, 'utf8');
    for (const spec of relativeImports(source)) {
      if (spec.startsWith('../src/')) continue; // the build's module, imported as such
      if (!spec.startsWith('./'))
        throw new Error(`builtChild: ${path.basename(file)} imports ${spec}: only bench/ and src/ files can be mapped`);
      todo.push(path.join(benchDir, spec.replace(/\.js$/, '.ts')));
    }
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    // .cache/bench/ is two levels below the root, as bench/ is one: ../src/x.js -> ../../dist/x.js.
    const js = outputText.replace(/(\bfrom\s+['"])\.\.\/src\//g, '$1../../dist/');
    writeFileSync(path.join(outDir, path.basename(file).replace(/\.ts$/, '.js')), js);
  }
  // An ES module by its package.json (the root's says "type": "module"; say it here too).
  writeFileSync(path.join(outDir, 'package.json'), '{ "type": "module" }\n');
  return path.join(outDir, path.basename(entry).replace(/\.ts$/, '.js'));
}
