// How fast a count database grows: a store filled through CountStore as the daemon fills it (two lines, a
// poll every 500 ms, `perDay` crossings a day spread evenly), then its file size. Not part of `npm run bench`
// (it measures bytes, not time): `node dist/bench/store-growth.js [DAYS] [CROSSINGS_PER_DAY]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CountStore } from '../src/store/count-store.js';

function fill(days: number, perDay: number): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-store-growth-'));
  try {
    const file = path.join(dir, 'counts.db');
    const store = CountStore.open(file, { maxBatch: 5_000 });
    store.registerCamera({ id: 'cam1', pollIntervalMs: 500, lines: [{ id: 'inbound', from: [0, 400], to: [600, 400] }, { id: 'outbound', from: [640, 400], to: [1280, 400] }] });
    const t0 = Date.UTC(2026, 0, 1);
    const perMinute = perDay / 1440;
    let made = 0;
    for (let m = 0; m < days * 1440; m++) {
      const t = t0 + m * 60_000;
      for (let k = 0; k < 120; k++) store.addFrameTicks('cam1', t + k * 500, { expected: 1, received: 1 });
      const n = Math.round((m + 1) * perMinute) - made;
      made += n;
      store.addEvents(Array.from({ length: n }, (_, i) => ({
        cameraId: 'cam1', lineId: i % 2 ? 'inbound' : 'outbound', direction: i % 2 ? 'in' : 'out', timeMs: t + i * 1_000, trackId: made + i,
        vehicleClass: 'car', areaPx: 812.5, bbox: [412.25, 388.5, 96.75, 54.5], speedPxPerS: 143.4, framesSeen: 4,
      } as const)));
      if (m % 1440 === 1439) store.flush();
    }
    store.close();
    return fs.statSync(file).size;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const days = Number(process.argv[2] ?? 7);
const perDay = Number(process.argv[3] ?? 30_000);
if (!(Number.isInteger(days) && days > 0 && Number.isInteger(perDay) && perDay >= 0)) {
  console.error('usage: node dist/bench/store-growth.js [DAYS (integer > 0)] [CROSSINGS_PER_DAY (integer ≥ 0)]');
  process.exit(2);
}
const all = fill(days, perDay);
const countsOnly = fill(days, 0);
const mb = (b: number): string => (b / 1e6).toFixed(2);
console.log(`${days} days, 1 camera, 2 lines, ${perDay} crossings a day: ${mb(all / days)} MB a day in all; roll-ups and uptime ${mb(countsOnly / days)} MB a day; ` +
  `crossing details ${perDay > 0 ? ((all - countsOnly) / (days * perDay)).toFixed(0) : '-'} bytes each`);
