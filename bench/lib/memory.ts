// Heap still held after N calls and a full GC, per call: what a call leaves behind (pending timers,
// listeners, signals) rather than what it allocates. Needs --expose-gc; undefined without it.

export async function retainedPerCall(call: () => Promise<unknown>, calls: number, gc: (() => void) | undefined): Promise<number | undefined> {
  if (!gc) return undefined;
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < calls; i++) await call();
  gc();
  gc();
  return (process.memoryUsage().heapUsed - before) / calls;
}
