import { ApiError } from './api.js';
import { attempt, byId, el } from './dom.js';
import { svg } from './svg.js';

/** What the chart draws, in this order within each hour; the colours are the CSS classes series-*. */
const SERIES = [
  { key: 'inbound', label: 'Inbound' },
  { key: 'delivered', label: 'Delivered' },
  { key: 'dead', label: 'Dead' },
  { key: 'rematched', label: 'Re-matched' },
];
const HEIGHT = 180;
const MARGIN = { top: 10, right: 8, bottom: 24, left: 34 };
const MIN_WIDTH = 260;
/** The narrowest gap between two hour labels on the axis, in px. */
const LABEL_SPACING = 56;

const hourLabel = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** A round top for the y axis: 1, 2, 5, 10, 20, 50… at or above the largest count. */
function niceMax(value) {
  if (value <= 1) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 5, 10]) if (factor * step >= value) return factor * step;
  return 10 * step;
}

/**
 * Inbound, delivered and dead per hour over the last 24 hours, drawn as grouped bars in inline SVG
 * at the width of its box (redrawn when that changes), with a legend of the totals and the same
 * numbers as a table for screen readers and for reading exact values.
 */
export function createActivity({ api }) {
  const panel = byId('activity-panel');
  const chart = byId('activity-chart');
  const legend = byId('activity-legend');
  const tableBody = byId('activity-table').querySelector('tbody');
  const note = byId('activity-note');
  let buckets = [];
  let drawnWidth = 0;

  function draw() {
    const width = Math.max(MIN_WIDTH, Math.floor(chart.clientWidth || 640));
    drawnWidth = width;
    const plotWidth = width - MARGIN.left - MARGIN.right;
    const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
    const top = niceMax(Math.max(0, ...buckets.flatMap((bucket) => SERIES.map(({ key }) => bucket[key] ?? 0))));
    const y = (value) => MARGIN.top + plotHeight - (value / top) * plotHeight;
    const slot = plotWidth / Math.max(1, buckets.length);
    const barWidth = Math.max(1, (slot * 0.8) / SERIES.length);
    const labelEvery = Math.max(1, Math.ceil(LABEL_SPACING / slot));
    const totals = SERIES.map(({ key, label }) => `${buckets.reduce((sum, bucket) => sum + (bucket[key] ?? 0), 0)} ${label.toLowerCase()}`);

    // Whole numbers only on the axis: the middle line when the top halves evenly.
    const ticks = top % 2 === 0 ? [0, top / 2, top] : [0, top];
    const grid = ticks.map((value) => [
      svg('line', { class: 'grid', x1: MARGIN.left, x2: width - MARGIN.right, y1: y(value), y2: y(value) }),
      svg('text', { class: 'axis', x: MARGIN.left - 4, y: y(value) + 4, 'text-anchor': 'end', text: value }),
    ]);
    const bars = buckets.map((bucket, index) => {
      const x0 = MARGIN.left + index * slot + slot * 0.1;
      return svg(
        'g',
        { class: 'hour' },
        SERIES.filter(({ key }) => (bucket[key] ?? 0) > 0).map(({ key, label }) => {
          const count = bucket[key];
          const x = x0 + SERIES.findIndex((series) => series.key === key) * barWidth;
          return svg(
            'rect',
            {
              class: `bar series-${key}`,
              'data-count': count,
              x: x.toFixed(1),
              y: y(count).toFixed(1),
              width: barWidth.toFixed(1),
              height: (y(0) - y(count)).toFixed(1),
            },
            svg('title', { text: `${hourLabel(bucket.start)}: ${count} ${label.toLowerCase()}` }),
          );
        }),
        index % labelEvery === 0
          ? svg('text', {
              class: 'axis',
              x: (MARGIN.left + index * slot + slot / 2).toFixed(1),
              y: HEIGHT - 6,
              'text-anchor': 'middle',
              text: hourLabel(bucket.start),
            })
          : null,
      );
    });
    chart.replaceChildren(
      svg(
        'svg',
        { class: 'chart', width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, role: 'img', 'aria-labelledby': 'activity-svg-title' },
        svg('title', { id: 'activity-svg-title', text: `Activity per hour, last ${buckets.length} hours: ${totals.join(', ')}` }),
        grid,
        svg('line', { class: 'baseline', x1: MARGIN.left, x2: width - MARGIN.right, y1: y(0), y2: y(0) }),
        bars,
      ),
    );
  }

  function render() {
    const totals = Object.fromEntries(SERIES.map(({ key }) => [key, buckets.reduce((sum, bucket) => sum + (bucket[key] ?? 0), 0)]));
    for (const { key } of SERIES) panel.dataset[key] = String(totals[key]);
    legend.replaceChildren(
      ...SERIES.map(({ key, label }) =>
        el('li', {}, el('span', { class: `swatch series-${key}`, 'aria-hidden': 'true' }), `${label} `, el('strong', { text: totals[key] })),
      ),
    );
    tableBody.replaceChildren(
      ...buckets.map((bucket) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row', text: hourLabel(bucket.start) }),
          SERIES.map(({ key }) => el('td', { text: bucket[key] ?? 0 })),
        ),
      ),
    );
    note.textContent = SERIES.every(({ key }) => totals[key] === 0) ? 'Nothing came in or went out in this period.' : '';
    draw();
  }

  async function load() {
    // A bridge without the activity route answers 404: say so instead of failing the page.
    const answer = await attempt(() =>
      api.get('activity').catch((error) => (error instanceof ApiError && error.status === 404 ? null : Promise.reject(error))),
    );
    if (answer === undefined) return;
    if (answer === null) {
      note.textContent = 'This bridge does not serve /admin/activity.';
      return;
    }
    buckets = [...answer.buckets].sort((a, b) => new Date(a.start).getTime() - new Date(b.start).getTime());
    panel.dataset.loaded = 'true';
    render();
  }

  // Redrawn at the new width in the next frame: drawing inside the observer's callback could resize the box again.
  new ResizeObserver(() => {
    const width = Math.max(MIN_WIDTH, Math.floor(chart.clientWidth));
    if (chart.clientWidth > 0 && width !== drawnWidth && buckets.length) requestAnimationFrame(draw);
  }).observe(chart);

  return { load };
}
