// The dashboard's own script, run as a browser would (in a VM context with a small stand-in for the DOM and fetch):
// it fills the camera, per-line and per-minute tables from /api/health and /api/counts, in the browser's time zone.
import vm from 'node:vm';
import { afterEach, expect, test, vi } from 'vitest';
import { DASHBOARD_HTML } from '../dist/src/server/index.js';

/** Just enough of an element for the dashboard: text, children, attributes, listeners. */
class El {
  textContent = '';
  className = '';
  children: El[] = [];
  attrs: Record<string, string> = {};
  constructor(readonly tag: string) {}
  appendChild(c: El): El {
    this.children.push(c);
    return c;
  }
  append(...cs: El[]): void {
    this.children.push(...cs);
  }
  replaceChildren(...cs: El[]): void {
    this.children = cs;
  }
  setAttribute(k: string, v: string): void {
    this.attrs[k] = v;
  }
  addEventListener(): void {}
}

function page(health: unknown, counts: unknown) {
  const byId = new Map<string, El>();
  const bySelector = new Map<string, El>();
  const zones = [...DASHBOARD_HTML.matchAll(/class="zone"/g)].map(() => new El('span'));
  const requests: string[] = [];
  const document = {
    getElementById: (id: string) => byId.get(id) ?? byId.set(id, new El('div')).get(id),
    querySelector: (sel: string) => bySelector.get(sel) ?? bySelector.set(sel, new El('tbody')).get(sel),
    querySelectorAll: (sel: string) => (sel === '.zone' ? zones : []),
    createElement: (tag: string) => new El(tag),
    createElementNS: (_ns: string, tag: string) => new El(tag),
  };
  const fetch = async (url: string) => {
    requests.push(url);
    const body = url.startsWith('/api/health') ? health : counts;
    return { ok: true, statusText: 'OK', json: async () => body };
  };
  const script = /<script>([\s\S]*)<\/script>/.exec(DASHBOARD_HTML)![1]!;
  vm.runInNewContext(script, { document, fetch, setInterval: () => 0, console });
  const rows = (sel: string) => bySelector.get(sel)?.children.map((tr) => tr.children.map((td) => td.textContent)) ?? [];
  return { rows, zones: () => zones.map((z) => z.textContent), requests, status: () => byId.get('status')?.textContent };
}

const row = (start: string, inCount: number, monitoredMs: number | null = 60_000) => ({
  bucket: 'minute', start, cameraId: 'cam1', lineId: 'a', in: inCount, out: 1, total: inCount + 1,
  framesReceived: 120, framesExpected: 120, uptime: 1, monitoredMs, monitored: monitoredMs === null ? null : monitoredMs / 60_000, framesMoved: 0, viewMoved: 0,
});

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

test('shows the minutes and the last frame in the browser\'s time zone, and fills every table', async () => {
  // India is 5 h 30 min ahead of UTC: no mistaking its times for UTC ones.
  process.env.TZ = 'Asia/Kolkata';
  const lastFrameAt = Date.parse('2026-12-06T07:59:58.000Z');
  const health = { ok: true, cameras: [{ id: 'cam1', status: 'counting', framesAnalysed: 120, lastFrameAt, dropped: 0, decodeErrors: 0, warnings: [] }] };
  const counts = { rows: [row('2026-12-06T07:58:00.000Z', 2), row('2026-12-06T07:59:00.000Z', 3)] };
  const p = page(health, counts);
  await vi.waitFor(() => expect(p.status()).toMatch(/^Updated/));

  // Named as the browser names it (this ICU says Asia/Calcutta).
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  expect(zone).toMatch(/^Asia\/(Kolkata|Calcutta)$/);
  expect(p.zones()).toEqual([zone, zone, zone]);
  expect(p.rows('#cameras tbody')).toEqual([['cam1', 'counting', '120', '2026-12-06 13:29:58', '0', '0']]);
  // Newest first, in local time; the per-line sums over the hour.
  expect(p.rows('#minutes tbody').map((r) => r.slice(0, 6))).toEqual([
    ['2026-12-06 13:29', 'cam1', 'a', '3', '1', '4'],
    ['2026-12-06 13:28', 'cam1', 'a', '2', '1', '3'],
  ]);
  // Full uptime, but two minutes monitored of the last hour (59 to 60 minutes, as far as the current one has gone).
  expect(p.rows('#summary tbody')).toEqual([['cam1', 'a', '5', '2', '7', '100.0%', '3%', '']]);
  expect(p.rows('#minutes tbody').map((r) => r.slice(6))).toEqual([['100.0%', '100%', ''], ['100.0%', '100%', '']]);
  // It asks for the last hour of minute buckets as a UTC instant, which the API takes whatever the zone.
  expect(p.requests.find((u) => u.startsWith('/api/counts'))).toMatch(/^\/api\/counts\?bucket=minute&from=\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A00\.000Z$/);
});

test('a minute the daemon ran for a part of reads that part; one whose monitored time was not recorded reads "?", and so does the hour', async () => {
  const p = page({ ok: true, cameras: [] }, { rows: [row('2026-12-06T07:58:00.000Z', 2, 15_000), row('2026-12-06T07:59:00.000Z', 3, null)] });
  await vi.waitFor(() => expect(p.status()).toMatch(/^Updated/));
  expect(p.rows('#minutes tbody').map((r) => r[7])).toEqual(['?', '25%']);
  expect(p.rows('#summary tbody').map((r) => r[6])).toEqual(['?']);
});

test('the hour shown twice when the clocks go back is told apart by its offset', async () => {
  process.env.TZ = 'Europe/Berlin';
  // 2026-10-25: 02:30 CEST (00:30 UTC), then, after the clocks went back at 03:00, 02:30 CET (01:30 UTC).
  const p = page({ ok: true, cameras: [] }, { rows: [row('2026-10-25T00:30:00.000Z', 1), row('2026-10-25T01:30:00.000Z', 2)] });
  await vi.waitFor(() => expect(p.status()).toMatch(/^Updated/));
  const [later, earlier] = p.rows('#minutes tbody').map((r) => r[0]!);
  expect(later).not.toBe(earlier);
  // Whichever offset is not today's is written out.
  const today = -new Date().getTimezoneOffset() / 60;
  expect(earlier).toBe(today === 2 ? '2026-10-25 02:30' : '2026-10-25 02:30 UTC+02:00');
  expect(later).toBe(today === 1 ? '2026-10-25 02:30' : '2026-10-25 02:30 UTC+01:00');
});
