// A daemon killed with -9 (or a power cut) in the middle of writing: every flush is one transaction holding the events
// and the minute, hour and day roll-ups they add to, so after a restart the four agree on every line, direction and
// class, nothing flushed is lost and nothing is counted twice; only what waited for the next flush (flushIntervalMs) is
// gone. README (Storage) says so.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { CountStore } from '../dist/src/store/index.js';

const STORE = fileURLToPath(new URL('../dist/src/store/index.js', import.meta.url));

// Writes 7 crossings every 2 ms over the hours of 2026-03-29 (Berlin's spring-forward night), flushing every 20 ms,
// and prints the total after each flush() that it made itself.
const WRITER = `
import { CountStore } from ${JSON.stringify(STORE)};
const store = CountStore.open(process.argv[2], { flushIntervalMs: 20, maxBatch: 40 });
store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [{ id: 'a', from: [0, 0], to: [10, 0] }, { id: 'b', from: [0, 0], to: [10, 0] }] });
const classes = ['car', 'heavy', 'two-wheeler', 'unknown'];
let n = 0;
let t = Date.UTC(2026, 2, 28, 23, 59, 0);
setInterval(() => {
  const events = [];
  for (let i = 0; i < 7; i++, n++) {
    t += 2_347;
    events.push({ cameraId: 'cam1', lineId: n % 2 ? 'a' : 'b', trackId: n, areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1,
      direction: n % 3 ? 'in' : 'out', vehicleClass: classes[(n >> 1) % 4], timeMs: t });
  }
  store.addEvents(events);
  if (n % 70 === 0) { store.flush(); process.stdout.write(n + '\\n'); }
}, 2);
`;

type Tally = Map<string, number>;

/** Per line, direction and class: the events' count, and each roll-up table's sum. */
function tallies(file: string): { events: Tally; minute: Tally; hour: Tally; day: Tally; duplicates: number } {
  const db = new Database(file, { readonly: true });
  try {
    const events: Tally = new Map();
    for (const r of db.prepare('SELECT line_id, direction, vehicle_class, count(*) AS n FROM events GROUP BY 1, 2, 3').all() as { line_id: string; direction: string; vehicle_class: string; n: number }[]) {
      events.set(`${r.line_id} ${r.direction} ${r.vehicle_class}`, r.n);
    }
    const rollup = (bucket: string): Tally => {
      const t: Tally = new Map();
      for (const key of events.keys()) {
        const [line, dir, cls] = key.split(' ');
        const n = db.prepare(`SELECT sum(${dir}_${cls.replace('-', '_')}) FROM counts_${bucket} WHERE line_id = ?`).pluck().get(line) as number;
        t.set(key, n);
      }
      return t;
    };
    const duplicates = db.prepare('SELECT count(*) FROM (SELECT track_id FROM events GROUP BY track_id HAVING count(*) > 1)').pluck().get() as number;
    return { events, minute: rollup('minute'), hour: rollup('hour'), day: rollup('day'), duplicates };
  } finally {
    db.close();
  }
}

test('killed with -9 while writing: events and minute, hour and day roll-ups agree after restart, no flushed count lost', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-killed-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'counts.db');
  const script = path.join(dir, 'writer.mjs');
  fs.writeFileSync(script, WRITER);

  const child = spawn(process.execPath, [script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  onTestFinished(() => void child.kill('SIGKILL'));
  let flushed = 0;
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    for (const line of s.split('\n')) if (line !== '') flushed = Number(line);
  });
  // Until it has flushed a few thousand crossings, its timer flushing in between.
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (flushed >= 3_000) {
        clearInterval(poll);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => reject(new Error(`the writer exited (${String(code)}) before it was killed`)));
  });
  const acknowledged = flushed;
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));

  // Restarted: opening recovers the WAL, and the next run's counts add to the same buckets.
  const store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [{ id: 'a', from: [0, 0], to: [10, 0] }, { id: 'b', from: [0, 0], to: [10, 0] }] });
  store.addEvents([{ cameraId: 'cam1', lineId: 'a', trackId: -1, areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1, direction: 'in', vehicleClass: 'car', timeMs: Date.UTC(2026, 2, 29, 1, 30) }]);
  store.close();

  const t = tallies(file);
  const total = [...t.events.values()].reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThanOrEqual(acknowledged + 1);
  expect(t.duplicates).toBe(0);
  expect(t.events.size).toBe(16); // 2 lines × 2 directions × 4 classes
  expect(t.minute).toEqual(t.events);
  expect(t.hour).toEqual(t.events);
  expect(t.day).toEqual(t.events);
});
