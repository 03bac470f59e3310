// A request with one header sent once per value: fetch (and a Headers object) would join the values into one line,
// as Node's server does with what it receives; node:http's setHeader with an array sends a line per value.
import { request } from 'node:http';

export function sendRepeatedHeader(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | undefined },
  name: string,
  values: string[],
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: init.method, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    sent.on('timeout', () => sent.destroy(new Error('no answer in 10 s')));
    sent.on('error', reject);
    for (const [header, value] of Object.entries(init.headers)) if (header.toLowerCase() !== name.toLowerCase()) sent.setHeader(header, value);
    sent.setHeader(name, values);
    sent.end(init.body);
  });
}
