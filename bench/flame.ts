// bench/flame: turns V8 CPU profiles (node --cpu-prof) into a flame graph (SVG, one file per profile) and a
// table of where the time went, so that a commit that changes a hot path can carry the picture of it.
//   NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench:send     (any benchmark; threads too)
//   npx tsx bench/flame.ts /tmp/prof bench/profiles/send-email [--title '...'] [--min-share 0.002] [--top K]
// Every *.cpuprofile in the folder becomes <out>-<n>.svg (largest profile first: the main thread), and
// <out>.md lists, per profile, the busiest functions by self time and the source areas by total time.
// Time is CPU time sampled: (idle) is left out, (program) and (garbage collector) are kept.
// The SVG needs no script: each frame's <title> shows its name, file and share when hovered.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

/** A frame of the flame graph: the call tree with siblings of the same function merged. */
interface Frame {
  name: string;
  where: string;
  self: number;
  total: number;
  children: Map<string, Frame>;
}

function frameName(f: CallFrame): string {
  return f.functionName || (f.url ? '(anonymous)' : '(native)');
}

/** Where a frame's code lives, shortened: the project's own files by path, packages by name. */
export function area(url: string): string {
  if (!url) return 'V8 / native';
  if (url.startsWith('node:')) return url;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  const bench = url.indexOf('/bench/');
  return bench >= 0 ? url.slice(bench + 1) : basename(url);
}

/** The merged call tree, in sampled milliseconds. Iterative: a deep profile cannot overflow the stack. */
export function buildTree(p: CpuProfile): Frame {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const samples = p.samples?.length ?? p.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
  const msPerSample = samples > 0 ? (p.endTime - p.startTime) / 1000 / samples : 0;
  const root: Frame = { name: 'all', where: '', self: 0, total: 0, children: new Map() };
  const stack: Array<[ProfileNode, Frame]> = [[p.nodes[0], root]];
  while (stack.length > 0) {
    const [node, parent] = stack.pop() as [ProfileNode, Frame];
    let target = parent;
    const name = frameName(node.callFrame);
    if (name === '(idle)') continue; // waiting, not CPU
    if (name !== '(root)') {
      // By function and file: tsx's compiled modules do not keep the source's line numbers.
      const where = area(node.callFrame.url);
      const key = `${name}\u0000${where}`;
      target = parent.children.get(key) ?? { name, where, self: 0, total: 0, children: new Map() };
      parent.children.set(key, target);
    }
    target.self += (node.hitCount ?? 0) * msPerSample;
    for (const c of node.children ?? []) {
      const child = byId.get(c);
      if (child) stack.push([child, target]);
    }
  }
  // Totals bottom-up (post-order without recursion).
  const order: Frame[] = [];
  const walk = [root];
  while (walk.length > 0) {
    const f = walk.pop() as Frame;
    order.push(f);
    for (const c of f.children.values()) walk.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const f = order[i];
    f.total = f.self;
    for (const c of f.children.values()) f.total += c.total;
  }
  return root;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function colour(f: Frame): string {
  if (f.name === '(garbage collector)') return '#b0b0b0';
  if (f.where.startsWith('src/')) return '#e8743b';
  if (f.where.startsWith('node:')) return '#6aa84f';
  if (f.where.startsWith('V8') || f.where === '') return '#9fc5e8';
  return '#f1c232';
}

/** An icicle-style flame graph: the root on top, callees below, widths by total time. */
export function toSvg(root: Frame, title: string, minShare: number): string {
  const W = 1600;
  const ROW = 17;
  const rects: string[] = [];
  let depthMax = 0;
  const queue: Array<[Frame, number, number, number]> = [[root, 0, 0, W]];
  while (queue.length > 0) {
    const [f, depth, x, w] = queue.shift() as [Frame, number, number, number];
    if (w < W * minShare) continue;
    depthMax = Math.max(depthMax, depth);
    const share = root.total > 0 ? (100 * f.total) / root.total : 0;
    const label = `${f.name} ${f.where}`.trim();
    const text = w > 40 ? `<text x="${(x + 3).toFixed(1)}" y="${(depth * ROW + 30 + 12).toFixed(1)}">${esc(label.slice(0, Math.floor((w - 6) / 6.5)))}</text>` : '';
    rects.push(
      `<g><title>${esc(label)}: ${f.total.toFixed(0)} ms total (${share.toFixed(1)}%), ${f.self.toFixed(0)} ms self</title>` +
        `<rect x="${x.toFixed(1)}" y="${depth * ROW + 30}" width="${Math.max(0.5, w - 0.5).toFixed(1)}" height="${ROW - 1}" fill="${colour(f)}"/>${text}</g>`,
    );
    let cx = x;
    const kids = [...f.children.values()].sort((a, b) => b.total - a.total);
    for (const c of kids) {
      const cw = f.total > 0 ? (w * c.total) / f.total : 0;
      queue.push([c, depth + 1, cx, cw]);
      cx += cw;
    }
  }
  const H = (depthMax + 1) * ROW + 60;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="monospace" font-size="11">` +
    `<rect width="100%" height="100%" fill="#fff"/><text x="4" y="18" font-size="14">${esc(title)}</text>` +
    `<text x="4" y="${H - 8}" fill="#555">orange: mailroom (src/); yellow: packages; green: node:; blue: V8 and native; grey: GC. Hover a frame for its times.</text>` +
    rects.join('') +
    '</svg>\n'
  );
}

/** Self time by function and total time by area (each area counted once per stack), as markdown. */
export function summary(root: Frame, top = 15): string {
  const self = new Map<string, number>();
  const areaTotal = new Map<string, number>();
  const walk: Array<[Frame, Set<string>]> = [[root, new Set()]];
  while (walk.length > 0) {
    const [f, seen] = walk.pop() as [Frame, Set<string>];
    const key = `${f.name} (${f.where})`;
    self.set(key, (self.get(key) ?? 0) + f.self);
    const a = f.where;
    let inner = seen;
    if (f !== root && !seen.has(a)) {
      inner = new Set(seen).add(a);
      // An area's total: the time of the outermost frame of that area on each stack.
      areaTotal.set(a, (areaTotal.get(a) ?? 0) + f.total);
    }
    for (const c of f.children.values()) walk.push([c, inner]);
  }
  const pct = (ms: number) => `${((100 * ms) / root.total).toFixed(1)}%`;
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => `| ${k.replace(/\|/g, '\\|')} | ${ms.toFixed(0)} ms | ${pct(ms)} |`)
      .join('\n');
  return `Sampled: ${root.total.toFixed(0)} ms.\n\n| function (file), by self time | ms | share |\n|---|---|---|\n${rows(self)}\n\n| area, by total time (callees included) | ms | share |\n|---|---|---|\n${rows(areaTotal)}\n`;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { title: { type: 'string' }, 'min-share': { type: 'string' }, top: { type: 'string' } } });
  const [dir, out] = positionals;
  if (!dir || !out) throw new Error('usage: tsx bench/flame.ts <folder of .cpuprofile> <output prefix> [--title T] [--min-share 0.002] [--top K]');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size)
    .slice(0, Number(values.top ?? Infinity));
  const md: string[] = [`# ${values.title ?? basename(out)}\n`];
  files.forEach((file, i) => {
    const root = buildTree(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
    const name = `${out}-${i + 1}.svg`;
    writeFileSync(name, toSvg(root, `${values.title ?? basename(out)} (${basename(file)}; ${root.total.toFixed(0)} ms sampled)`, Number(values['min-share'] ?? 0.002)));
    md.push(`## ${basename(name)} (${basename(file)})\n\n${summary(root)}`);
  });
  writeFileSync(`${out}.md`, md.join('\n'));
  console.log(`${files.length} profile(s) -> ${out}-N.svg and ${out}.md`);
}
