// Progress on stderr for long runs: one rewritten line on a terminal, a line every few seconds otherwise
// (CI logs). Stdout stays for the summary.
import type { CheckResult } from './types.ts';

export interface Progress {
  begin(totalChecks: number): void;
  checkStart(name: string): void;
  request(): void;
  checkEnd(result: CheckResult): void;
  end(): void;
  /** The run sits still for `ms` waiting for room in a rate limit (`why` says which). Optional: older implementations have none. */
  waiting?(ms: number, why: string): void;
}

export const silentProgress: Progress = { begin() {}, checkStart() {}, request() {}, checkEnd() {}, end() {} };

interface Stream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export function stderrProgress(stream: Stream = process.stderr, intervalMs = 5_000): Progress {
  let total = 0;
  let done = 0;
  let requests = 0;
  let failed = 0;
  let warnings = 0;
  let inconclusive = 0;
  let current = '';
  let lastDraw = 0;
  let timer: NodeJS.Timeout | undefined;
  const tty = stream.isTTY === true;
  const line = () => `[${String(done).padStart(String(total).length)}/${total}] ${requests} requests, ${failed} failed, ${warnings} warnings, ${inconclusive} inconclusive  ${current}`;
  const draw = (force = false) => {
    if (!tty) return;
    const now = Date.now();
    if (!force && now - lastDraw < 100) return;
    lastDraw = now;
    const width = (process.stderr.columns ?? 100) - 1;
    stream.write(`\r\x1b[2K${line().slice(0, width)}`);
  };
  return {
    begin(n) {
      total = n;
      if (tty) draw(true);
      else {
        stream.write(`contract-kit: ${n} checks\n`);
        timer = setInterval(() => stream.write(`contract-kit: ${line()}\n`), intervalMs);
        timer.unref();
      }
    },
    checkStart(name) {
      current = name;
      draw(true);
    },
    request() {
      requests++;
      draw();
    },
    checkEnd(result) {
      done++;
      if (result.status === 'failed') failed++;
      warnings += result.warnings.length;
      inconclusive += result.inconclusive;
      draw(true);
    },
    waiting(ms, why) {
      const text = `waiting ${Math.ceil(ms / 1000)} s for room in ${why}`;
      if (tty) {
        current = `${current.replace(/ — waiting .*$/, '')} — ${text}`;
        draw(true);
      } else {
        stream.write(`contract-kit: ${text}\n`);
      }
    },
    end() {
      if (timer) clearInterval(timer);
      current = ''; // the last check's title is no part of the totals (QA: the done line ended with it)
      if (tty) stream.write('\r\x1b[2K');
      else stream.write(`contract-kit: done, ${line().replace(/\s+$/, '')}\n`);
    },
  };
}
