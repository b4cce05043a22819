/**
 * Functions, methods and arrow functions longer than a limit (80 lines by default), with the TypeScript
 * compiler's parser. A function may stay long with a reason: a comment just before it that starts
 * `long function:`. Exits 1 when a long function has no reason.
 *
 *   node --import tsx scripts/long-functions.ts [--limit 80] [--all] [dir…]
 *
 * Default directories: the product code of the workspaces. --all lists the justified ones too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const limitAt = args.indexOf('--limit');
const limit = limitAt >= 0 ? Number(args.splice(limitAt, 2)[1]) : 80;
const all = args.includes('--all');
const dirs = args.filter((a) => !a.startsWith('--'));
const roots =
  dirs.length > 0 ? dirs : ['server/src', 'signing-page/src', 'console/src', 'agent/src', 'shared/src', 'sdk/node/src', 'sdk/embed/src'];
const REASON = /long function:\s*(.+)/i;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(file);
  return ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)';
}

/** The reason in the comments before the function (or before the statement that holds it). */
function reasonOf(node: ts.Node, text: string): string | null {
  for (let n: ts.Node | undefined = node; n && !ts.isSourceFile(n) && !ts.isBlock(n); n = n.parent) {
    for (const c of ts.getLeadingCommentRanges(text, n.getFullStart()) ?? []) {
      const match = REASON.exec(text.slice(c.pos, c.end));
      if (match) return match[1]!.replace(/\s*\*\/$/, '').trim();
    }
  }
  return null;
}

let unjustified = 0;
for (const root of roots) {
  for (const path of sources(root)) {
    const text = readFileSync(path, 'utf8');
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const fn = node as ts.FunctionLikeDeclaration;
        const lines = file.getLineAndCharacterOfPosition(fn.end).line - file.getLineAndCharacterOfPosition(fn.getStart(file)).line + 1;
        if (lines > limit) {
          const reason = reasonOf(fn, text);
          if (!reason) unjustified++;
          if (!reason || all)
            console.log(
              `${path}:${file.getLineAndCharacterOfPosition(fn.getStart(file)).line + 1}\t${nameOf(fn, file)}\t${lines} lines${reason ? `\t(${reason})` : ''}`,
            );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
}
process.exitCode = unjustified > 0 ? 1 : 0;
