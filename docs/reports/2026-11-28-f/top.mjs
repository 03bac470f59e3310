import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const counts = new Map();
for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
let total = 0, idle = 0;
for (const [id, c] of counts) {
  const n = byId.get(id); const f = n.callFrame;
  if (f.functionName === '(idle)') { idle += c; continue; }
  total += c;
  let key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  if (!f.url) { const par = byId.get(parent.get(id)); key += ' <- ' + (par?.callFrame.functionName || '?') + ' ' + (par?.callFrame.url.split('/').slice(-2).join('/') || '') + ':' + ((par?.callFrame.lineNumber ?? 0) + 1); }
  self.set(key, (self.get(key) ?? 0) + c);
}
console.log('busy samples', total, 'idle', idle);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 60))) console.log((100 * v / total).toFixed(1).padStart(5), k);
