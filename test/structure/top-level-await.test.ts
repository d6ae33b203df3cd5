// tier: unit
// No module of src/ or test/helpers/ awaits at its top level. The test runner bundles each test process's entry with src into
// chunks that several entries share (scripts/test-bundle.mjs), and chunks may import one another in a cycle:
// a chunk that awaited at its top level could wait on one that waits on it, and a test process would hang
// before its first test. Only the test files (entry points, which no chunk imports) may await there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { sourceFiles } from './source-lines.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const HELPERS = new URL('../helpers', import.meta.url).pathname;

/** The lines of `file` where an await (or `for await`) runs when the module is evaluated. */
function topLevelAwaits(file: string): number[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    // A function's body runs when it is called, not when the module is evaluated; a class's field initialisers
    // and methods likewise (static blocks cannot await).
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    const awaits = ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier !== undefined);
    if (awaits) lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe('top-level await', () => {
  it('no module of src/ or test/helpers/ awaits when it is evaluated', () => {
    const modules = [...sourceFiles(), ...sourceFiles(HELPERS).filter((f) => !f.endsWith('.test.ts'))];
    const found = modules.flatMap((f) => topLevelAwaits(f).map((line) => `${relative(ROOT, f)}:${line}`));
    assert.deepEqual(found, []);
  });

  it('the check finds one: a test file that awaits at its top level', () => {
    const file = new URL('../domain/delivery/ipv6.test.ts', import.meta.url).pathname;
    assert.ok(topLevelAwaits(file).length > 0);
  });
});
