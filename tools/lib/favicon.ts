// The docs' favicon: one small drawing (a white card on a blue rounded square), as SVG for the page's
// <link rel="icon"> (a data: URI, so the self-contained page makes no request for it) and as /favicon.ico
// for what asks the server for one (a browser opening an API URL, bookmarks). The .ico holds one 32×32 PNG,
// rasterized here from the same shapes: no image tool or binary asset is needed at build time.
import { crc32, deflateSync } from 'node:zlib';

const SIZE = 32;
const BLUE = [0x0b, 0x57, 0xd0] as const;
const WHITE = [0xff, 0xff, 0xff] as const;

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
  r: number;
  color: readonly [number, number, number];
}

/** Back to front: the tile, the card, the card's stripe. */
const SHAPES: Rect[] = [
  { x: 0, y: 0, w: 32, h: 32, r: 7, color: BLUE },
  { x: 5, y: 9, w: 22, h: 15, r: 2, color: WHITE },
  { x: 5, y: 12, w: 22, h: 3, r: 0, color: BLUE },
];

export const faviconSvg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">`,
  ...SHAPES.map((s) => `<rect x="${s.x}" y="${s.y}" width="${s.w}" height="${s.h}" rx="${s.r}" fill="#${s.color.map((c) => c.toString(16).padStart(2, '0')).join('')}"/>`),
  '</svg>',
].join('');

/** Coverage (0..1) of pixel (px, py) by a rounded rectangle, sampled 4×4 for smooth corners. */
function coverage(s: Rect, px: number, py: number): number {
  let inside = 0;
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      const x = px + (i + 0.5) / 4;
      const y = py + (j + 0.5) / 4;
      if (x < s.x || x > s.x + s.w || y < s.y || y > s.y + s.h) continue;
      const dx = Math.max(s.x + s.r - x, 0, x - (s.x + s.w - s.r));
      const dy = Math.max(s.y + s.r - y, 0, y - (s.y + s.h - s.r));
      if (dx * dx + dy * dy <= s.r * s.r) inside++;
    }
  }
  return inside / 16;
}

function rgba(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const o = (y * SIZE + x) * 4;
      for (const shape of SHAPES) {
        const a = coverage(shape, x, y);
        if (a === 0) continue;
        const under = pixels[o + 3]! / 255;
        const out = a + under * (1 - a);
        for (let c = 0; c < 3; c++) pixels[o + c] = Math.round((shape.color[c]! * a + pixels[o + c]! * under * (1 - a)) / out);
        pixels[o + 3] = Math.round(out * 255);
      }
    }
  }
  return pixels;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function faviconPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(SIZE, 0);
  ihdr.writeUInt32BE(SIZE, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter method, no interlace
  const pixels = rgba();
  const rows = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let y = 0; y < SIZE; y++) pixels.copy(rows, y * (SIZE * 4 + 1) + 1, y * SIZE * 4, (y + 1) * SIZE * 4); // filter 0 per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An .ico with one PNG image (supported by every browser since Windows Vista's format revision). */
export function faviconIco(): Buffer {
  const png = faviconPng();
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.set([SIZE, SIZE, 0, 0], 6); // width, height, no palette, reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(header.length, 18); // the PNG follows the directory
  return Buffer.concat([header, png]);
}

export const faviconDataUri = `data:image/svg+xml,${encodeURIComponent(faviconSvg)}`;
