import { readFileSync } from 'node:fs';
const [file, fname, depth = 4] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const counts = new Map(); for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
let busy = 0; for (const [id, c] of counts) if (byId.get(id).callFrame.functionName !== '(idle)') busy += c;
const agg = new Map();
for (const [id, c] of counts) {
  const n = byId.get(id); if (n.callFrame.functionName !== fname) continue;
  const chain = []; let cur = parent.get(id);
  for (let i = 0; i < Number(depth) && cur; i++) { const f = byId.get(cur).callFrame; chain.push(`${f.functionName || '(anon)'}:${f.lineNumber + 1}`); cur = parent.get(cur); }
  const k = chain.join(' < '); agg.set(k, (agg.get(k) ?? 0) + c);
}
for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((100 * v / busy).toFixed(1).padStart(5), k);
