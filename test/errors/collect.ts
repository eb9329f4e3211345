/**
 * Every error code the service can raise, read from the source's syntax trees (not a grep,
 * and fast: no type checking). It finds the AppError classes (lib/errors.ts and any class
 * extending one), then each `new X(...)` and `super(...)` of them, and takes the argument
 * the constructor calls `code` (or that parameter's default). A code passed through a
 * parameter typed as a union of string literals counts each literal. Anything else is
 * reported as unresolved, unless it forwards a code counted elsewhere: a subclass's
 * constructor passing its own `code` parameter on, or a rethrow of a caught `err.code`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface CodeSite {
  code: string;
  /** The class whose instance carries the code (BusinessRuleError, ChainRejectedError, ...). */
  cls: string;
  where: string;
}

export interface Collected {
  sites: CodeSite[];
  /** Constructions whose code cannot be pinned down to string literals. */
  unresolved: string[];
}

interface ErrorClass {
  base: string;
  /** Constructor parameters; undefined when the class inherits its base's constructor. */
  params?: readonly ts.ParameterDeclaration[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

function literalsOfType(type: ts.TypeNode | undefined): string[] | null {
  if (!type) return null;
  const parts = ts.isUnionTypeNode(type) ? type.types : [type];
  const out: string[] = [];
  for (const p of parts) {
    if (!ts.isLiteralTypeNode(p) || !ts.isStringLiteral(p.literal)) return null;
    out.push(p.literal.text);
  }
  return out;
}

export function collectErrorCodes(root: string, excludeDirs: string[]): Collected {
  const files = sourceFiles(path.join(root, 'src'))
    .filter((f) => !excludeDirs.some((d) => f.startsWith(path.join(root, d) + path.sep)))
    .map((f) => ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.ES2022, true));

  // Every class by name, then the ones that descend from AppError.
  const classes = new Map<string, ErrorClass>();
  for (const file of files) {
    const walk = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name) {
        const ext = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
        const ctor = node.members.find(ts.isConstructorDeclaration);
        if (ext && ts.isIdentifier(ext)) classes.set(node.name.text, { base: ext.text, ...(ctor ? { params: ctor.parameters } : {}) });
        else if (node.name.text === 'AppError') classes.set('AppError', { base: '', ...(ctor ? { params: ctor.parameters } : {}) });
      }
      ts.forEachChild(node, walk);
    };
    walk(file);
  }
  const isError = (name: string): boolean => {
    for (let n: string | undefined = name, hops = 0; n && hops < 20; n = classes.get(n)?.base, hops++) if (n === 'AppError') return true;
    return false;
  };
  const paramsOf = (name: string): readonly ts.ParameterDeclaration[] => {
    for (let n: string | undefined = name; n; n = classes.get(n)?.base) {
      const params = classes.get(n)?.params;
      if (params) return params;
    }
    return [];
  };

  const sites: CodeSite[] = [];
  const unresolved: string[] = [];

  const codesOf = (arg: ts.Expression): string[] | 'forwarded' | null => {
    if (ts.isStringLiteralLike(arg)) return [arg.text];
    if (ts.isPropertyAccessExpression(arg) && arg.name.text === 'code') return 'forwarded';
    if (ts.isIdentifier(arg)) {
      // The parameter of that name in the nearest enclosing function.
      for (let n: ts.Node | undefined = arg.parent; n; n = n.parent) {
        if (!ts.isFunctionLike(n)) continue;
        const param = n.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === arg.text);
        if (!param) continue;
        if (ts.isConstructorDeclaration(n) && ts.isClassDeclaration(n.parent) && n.parent.name && isError(n.parent.name.text)) {
          return 'forwarded';
        }
        return literalsOfType(param.type);
      }
    }
    return null;
  };

  for (const file of files) {
    const where = (node: ts.Node) =>
      `${path.relative(root, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const walk = (node: ts.Node): void => {
      let target: string | undefined; // the class whose constructor runs
      let carrier: string | undefined; // the class of the instance
      let args: readonly ts.Expression[] = [];
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && isError(node.expression.text)) {
        target = carrier = node.expression.text;
        args = node.arguments ?? [];
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        const cls = ts.findAncestor(node, ts.isClassDeclaration);
        const name = cls?.name?.text;
        if (name && isError(name)) {
          target = classes.get(name)!.base;
          carrier = name;
          args = node.arguments;
        }
      }
      if (target && carrier) {
        const params = paramsOf(target);
        const index = params.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === 'code');
        if (index >= 0) {
          const arg = args[index] ?? params[index]!.initializer;
          const codes = arg ? codesOf(arg) : null;
          if (codes === null) unresolved.push(`${where(node)}: ${arg?.getText() ?? '(no code)'}`);
          else if (codes !== 'forwarded') for (const code of codes) sites.push({ code, cls: carrier, where: where(node) });
        }
      }
      ts.forEachChild(node, walk);
    };
    walk(file);
  }
  return { sites, unresolved };
}

/**
 * The codes http/ answers with by itself (Fastify's parser and limits, the database's
 * concurrency aborts, unknown routes, the last-resort 500): `code: 'X'` and `error: 'X'`
 * in the object literals of the given file.
 */
export function collectEnvelopeCodes(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const codes = new Set<string>();
  const walk = (node: ts.Node): void => {
    if (
      ts.isPropertyAssignment(node) &&
      ts.isIdentifier(node.name) &&
      (node.name.text === 'code' || node.name.text === 'error') &&
      ts.isStringLiteralLike(node.initializer)
    ) {
      codes.add(node.initializer.text);
    }
    ts.forEachChild(node, walk);
  };
  walk(source);
  return [...codes];
}
