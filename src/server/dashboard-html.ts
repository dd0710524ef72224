// The dashboard served at GET /: one static page whose inline script polls /api/health and /api/counts every 10 s,
// and shows each camera's latest image with its ROI and lines drawn over it.
// Plain HTML and JS on purpose: no build step, nothing to install.

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>traffic-counter</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #222; }
  h1 { font-size: 1.3rem; margin: 0 0 .25rem; }
  h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
  table { border-collapse: collapse; }
  th, td { padding: .2rem .7rem; border-bottom: 1px solid #ddd; text-align: left; }
  td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
  .down { color: #b00020; font-weight: 600; }
  .muted { color: #777; }
  .warn { color: #8a5300; }
  ul.warnings { margin: .25rem 0 0; padding-left: 1.2rem; }
  #views { display: flex; flex-wrap: wrap; gap: 1rem; }
  figure { margin: 0; max-width: min(100%, 640px); }
  .view { position: relative; }
  .view img { display: block; width: 100%; height: auto; background: #eee; min-height: 2rem; }
  .view svg { position: absolute; inset: 0; width: 100%; height: 100%; overflow: visible; }
  figcaption { font-size: .85rem; color: #555; }
</style>
</head>
<body>
<h1>traffic-counter</h1>
<div class="muted">Last 60 minutes, minute buckets; times are this browser's (<span class="zone">local time</span>). Uptime = frames received / frames expected; a camera outage shows as low uptime, not as zero traffic. Monitored = share of the time the daemon watched the camera with the line configured, answering or not (per line: of the last 60 minutes up to now; per minute: of the whole minute, so the minute in progress fills as it goes); uptime is over that time only, so few vehicles at full uptime but low monitored is a short watch, not a quiet road. View moved = share of the frames taken while the camera's view did not match the one its ROI and lines were learnt on; those counts are unreliable. <span id="status"></span></div>
<h2>Cameras</h2>
<table id="cameras"><thead><tr><th>camera</th><th>status</th><th class="n">frames analysed</th><th>last frame (<span class="zone">local time</span>)</th><th class="n">dropped</th><th class="n">decode errors</th></tr></thead><tbody></tbody></table>
<ul id="warnings" class="warnings warn"></ul>
<h2>Camera views</h2>
<div class="muted">The latest image of each camera, with its region of interest (blue) and counting lines (yellow; the arrow points the way counted as <em>in</em>). Check that they cover the road as you meant.</div>
<div id="views"></div>
<h2>Per line, last 60 minutes</h2>
<table id="summary"><thead><tr><th>camera</th><th>line</th><th class="n">in</th><th class="n">out</th><th class="n">total</th><th class="n">uptime</th><th class="n">monitored</th><th class="n">view moved</th></tr></thead><tbody></tbody></table>
<h2>Per minute</h2>
<table id="minutes"><thead><tr><th>start (<span class="zone">local time</span>)</th><th>camera</th><th>line</th><th class="n">in</th><th class="n">out</th><th class="n">total</th><th class="n">uptime</th><th class="n">monitored</th><th class="n">view moved</th></tr></thead><tbody></tbody></table>
<script>
'use strict';
// Times are shown in the browser's zone (the API's are UTC instants): a minute starts at the same instant everywhere.
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
for (const el of document.querySelectorAll('.zone')) el.textContent = ZONE;
// A time whose UTC offset is not today's (the hour before the clocks went back, shown twice) carries its offset.
function localTime(ms, seconds) {
  const d = new Date(ms), two = (n) => String(n).padStart(2, '0');
  const off = d.getTimezoneOffset(), abs = Math.abs(off);
  const offset = off === new Date().getTimezoneOffset() ? '' : ' UTC' + (off <= 0 ? '+' : '-') + two(Math.floor(abs / 60)) + ':' + two(abs % 60);
  return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + ' ' + two(d.getHours()) + ':' + two(d.getMinutes()) + (seconds ? ':' + two(d.getSeconds()) : '') + offset;
}
function pct(received, expected) {
  if (!expected) return '-';
  return (Math.min(1, received / expected) * 100).toFixed(1) + '%';
}
// The share of the time monitored, as query prints it: "?" when the database did not record it (before schema 3).
// Marked down under half only where the time it is of is over (\`over\`): a minute in progress is not half watched.
function monitoredCell(m, over) {
  if (m === null || m === undefined) return { text: '?', num: true };
  return { text: m > 0 && m < 0.005 ? '<1%' : Math.round(Math.min(1, m) * 100) + '%', num: true, down: over && m < 0.5 };
}
// Frames taken while the camera's view did not match its ROI's (turned, zoomed, blocked): those counts are unreliable.
function movedCell(moved, received) {
  if (!moved || !received) return { text: '', num: true };
  return { text: Math.max(0.1, Math.min(1, moved / received) * 100).toFixed(1) + '%', num: true, down: true };
}
function fill(tbody, rows) {
  // textContent only: nothing from the API is ever parsed as HTML.
  tbody.replaceChildren();
  for (const cells of rows) {
    const tr = document.createElement('tr');
    for (const c of cells) {
      const td = document.createElement('td');
      td.textContent = c.text;
      if (c.num) td.className = 'n';
      if (c.down) td.className += ' down';
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
}
const SVG = 'http://www.w3.org/2000/svg';
const views = new Map();
function svgEl(name, attrs) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}
// The ROI and lines are in pixels of the frame the camera's drawnOn gives, scaled to frames of the same shape (as
// the analyzer does); without drawnOn, or for frames of another shape, in the image's own pixels.
function drawView(v) {
  const c = v.camera, img = v.img;
  if (!img.naturalWidth || !c.view) return;
  const d = c.view.drawnOn;
  const sameShape = d && Math.abs((img.naturalWidth / img.naturalHeight) / (d[0] / d[1]) - 1) <= 0.02;
  const w = sameShape ? d[0] : img.naturalWidth, h = sameShape ? d[1] : img.naturalHeight;
  v.svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
  const stroke = { 'vector-effect': 'non-scaling-stroke', 'stroke-width': 2, fill: 'none' };
  const shapes = [svgEl('polygon', { ...stroke, points: c.view.roi.map((p) => p.join(',')).join(' '), stroke: '#1e6fff', fill: 'rgba(30,111,255,0.12)' })];
  const arrow = 0.04 * w;
  for (const l of c.view.lines) {
    const [x1, y1] = l.from, [x2, y2] = l.to;
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    // "in" is motion m with cross(to - from, m) > 0: along (-dy, dx) in image coordinates.
    const nx = -(y2 - y1) / len, ny = (x2 - x1) / len, mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    const tx = mx + nx * arrow, ty = my + ny * arrow;
    shapes.push(svgEl('line', { ...stroke, x1, y1, x2, y2, stroke: '#ffd400' }));
    shapes.push(svgEl('line', { ...stroke, x1: mx, y1: my, x2: tx, y2: ty, stroke: '#ffd400' }));
    shapes.push(svgEl('polyline', { ...stroke, stroke: '#ffd400', points: [
      [tx - nx * arrow * 0.35 + ny * arrow * 0.25, ty - ny * arrow * 0.35 - nx * arrow * 0.25], [tx, ty],
      [tx - nx * arrow * 0.35 - ny * arrow * 0.25, ty - ny * arrow * 0.35 + nx * arrow * 0.25]].map((p) => p.join(',')).join(' ') }));
    const label = svgEl('text', { x: tx + nx * arrow * 0.3, y: ty + ny * arrow * 0.3, fill: '#ffd400', stroke: '#000', 'stroke-width': 0.5, 'font-size': Math.max(12, 0.025 * w), 'font-weight': 'bold', 'text-anchor': 'middle' });
    label.textContent = l.id + ' in';
    shapes.push(label);
  }
  v.svg.replaceChildren(...shapes);
  v.caption.textContent = c.id + ': ' + img.naturalWidth + 'x' + img.naturalHeight + (d ? ', ROI and lines drawn on ' + d[0] + 'x' + d[1] + (sameShape ? '' : ' (another shape: shown as drawn, in the image\u2019s pixels)') : '');
}
function showView(c) {
  let v = views.get(c.id);
  if (!v) {
    const fig = document.createElement('figure'), box = document.createElement('div'), caption = document.createElement('figcaption');
    box.className = 'view';
    const img = document.createElement('img');
    img.alt = 'latest image of camera ' + c.id;
    const svg = svgEl('svg', { preserveAspectRatio: 'none' });
    box.append(img, svg);
    fig.append(box, caption);
    document.getElementById('views').appendChild(fig);
    v = { camera: c, img, svg, caption };
    img.addEventListener('load', () => drawView(v));
    img.addEventListener('error', () => { v.svg.replaceChildren(); v.caption.textContent = v.camera.id + ': no image yet (see its status and warnings above)'; });
    views.set(c.id, v);
  }
  v.camera = c;
  v.img.src = '/api/cameras/' + encodeURIComponent(c.id) + '/latest.jpg?t=' + Date.now();
}
async function refreshHealth() {
  const res = await fetch('/api/health', { cache: 'no-store' });
  const body = await res.json();
  // 503 with cameras: the daemon runs but is not healthy (its database refuses writes); shown, not an error.
  if (!res.ok && !body.cameras) throw new Error(body.error ? body.error.message : res.statusText);
  const cams = body.cameras || []; // { ok, channel, cameras, store }
  fill(document.querySelector('#cameras tbody'), cams.map((c) => [
    { text: c.id }, { text: c.status || '-', down: c.status === 'down' || c.status === 'frozen' || c.status === 'failing' || c.status === 'moved' }, { text: String(c.framesAnalysed), num: true },
    { text: c.lastFrameAt ? localTime(c.lastFrameAt, true) : '-' },
    { text: String(c.dropped), num: true }, { text: String(c.decodeErrors), num: true },
  ]));
  for (const c of cams) showView(c);
  const list = document.getElementById('warnings');
  list.replaceChildren();
  for (const w of (body.store && body.store.warnings) || []) {
    const li = document.createElement('li');
    li.textContent = w.message;
    list.appendChild(li);
  }
  for (const c of cams) {
    for (const w of c.warnings || []) {
      const li = document.createElement('li');
      li.textContent = w.message;
      list.appendChild(li);
    }
  }
}
async function refresh() {
  try {
    await refreshHealth();
  } catch (err) {
    document.getElementById('warnings').textContent = 'Health update failed: ' + err.message;
  }
  const status = document.getElementById('status');
  const now = Date.now();
  const from = new Date(Math.floor(now / 60000) * 60000 - 59 * 60000).toISOString();
  try {
    const res = await fetch('/api/counts?bucket=minute&from=' + encodeURIComponent(from), { cache: 'no-store' });
    const body = await res.json();
    if (!res.ok) throw new Error(body.error ? body.error.message : res.statusText);
    const rows = body.rows;
    const sums = new Map();
    for (const r of rows) {
      const key = r.cameraId + '\\u0000' + r.lineId;
      const s = sums.get(key) || { cameraId: r.cameraId, lineId: r.lineId, in: 0, out: 0, received: 0, expected: 0, moved: 0, monitoredMs: 0 };
      s.in += r.in; s.out += r.out; s.received += r.framesReceived; s.expected += r.framesExpected; s.moved += r.framesMoved || 0;
      s.monitoredMs = s.monitoredMs === null || r.monitoredMs === null || r.monitoredMs === undefined ? null : s.monitoredMs + r.monitoredMs;
      sums.set(key, s);
    }
    fill(document.querySelector('#summary tbody'), [...sums.values()].map((s) => [
      { text: s.cameraId }, { text: s.lineId }, { text: String(s.in), num: true }, { text: String(s.out), num: true },
      { text: String(s.in + s.out), num: true }, { text: pct(s.received, s.expected), num: true, down: s.expected > 0 && s.received / s.expected < 0.5 },
      // Of the whole window asked for, up to now: minutes not monitored at all have no row.
      monitoredCell(s.monitoredMs === null ? null : s.monitoredMs / Math.max(1, now - Date.parse(from)), true),
      movedCell(s.moved, s.received),
    ]));
    fill(document.querySelector('#minutes tbody'), rows.slice().reverse().map((r) => [
      { text: localTime(Date.parse(r.start), false) }, { text: r.cameraId }, { text: r.lineId },
      { text: String(r.in), num: true }, { text: String(r.out), num: true }, { text: String(r.total), num: true },
      { text: pct(r.framesReceived, r.framesExpected), num: true, down: r.uptime !== null && r.uptime < 0.5 },
      monitoredCell(r.monitored, Date.parse(r.start) + 60000 <= now),
      movedCell(r.framesMoved || 0, r.framesReceived),
    ]));
    status.textContent = 'Updated ' + new Date().toLocaleTimeString() + '.';
  } catch (err) {
    status.textContent = 'Update failed: ' + err.message + ' (retrying in 10 s)';
  }
}
refresh();
setInterval(refresh, 10000);
</script>
</body>
</html>
`;
