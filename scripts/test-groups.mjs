// Several test files in one process. Each test process first loads the service and its ~800 modules, about
// 2 s of CPU, more than most integration files spend testing (bench/README.md, "CI time"); a process that
// runs a group of files pays that once for the group. The files of a group run one after another, as the
// top-level tests of one file do (node:test's root runs one at a time), each file its own module with its
// own services and test database, so what a file sees differs from a process of its own only by the src
// modules being loaded already.
//
// A file stays in a process of its own when it reads what other files in its process would change: the
// process's CPU or memory use (a budget read from process.cpuUsage), its umask, or when it has hooks at its
// top level (node:test's root hooks would then also run around the other files' tests).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const OWN_PROCESS = [/process\.(cpuUsage|memoryUsage|resourceUsage|umask)\b/, /^(before|after|beforeEach|afterEach)\(/m];

/** Whether a test file (.ts source) must run in a process of its own. */
export function needsOwnProcess(file) {
  const text = readFileSync(file, 'utf8');
  return OWN_PROCESS.some((re) => re.test(text));
}

/** Splits files into groups of at most `size`, dealt out in turn (file i to group i mod n) so that the
 * neighbouring files of one folder, often alike in cost (the browser tests, the SMTP listeners), spread over
 * the groups and the groups end at about the same time; a file that needs its own process is a group of one. */
export function groupFiles(files, size) {
  const own = [];
  const shared = [];
  for (const f of files) (size <= 1 || needsOwnProcess(f) ? own : shared).push(f);
  const n = Math.ceil(shared.length / Math.max(1, size));
  const groups = Array.from({ length: n }, () => []);
  shared.forEach((f, i) => groups[i % n].push(f));
  return [...own.map((f) => [f]), ...groups];
}

/**
 * The file node --test runs for each group: the test file itself for a group of one, else a file in `dir`
 * that imports the group's (transpiled) files one after another. A file that fails to load becomes a failed
 * test named after it, and the group goes on with the next.
 */
export function groupEntries(dir, name, groups) {
  mkdirSync(dir, { recursive: true });
  return groups.map((files, i) => {
    if (files.length === 1) return { entry: files[0], files };
    const entry = join(dir, `${name}-${i + 1}.test.js`);
    const lines = [`import { test } from 'node:test';`, `// ${files.length} test files in one process (scripts/test-groups.mjs)`];
    for (const f of files) {
      // A path, not a file: URL, so that scripts/test-bundle.mjs can follow it into the file.
      const path = JSON.stringify(f);
      lines.push(`try { await import(${path}); } catch (err) { test(${JSON.stringify(`loading ${f}`)}, () => { throw err; }); }`);
    }
    writeFileSync(entry, `${lines.join('\n')}\n`);
    return { entry, files };
  });
}
