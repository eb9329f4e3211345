/**
 * Bar charts drawn on the server as SVG (no chart library, no script, no request to anyone):
 * one group of bars per day, one bar per series. Heights come from the decimal strings in
 * integer arithmetic; each bar carries its exact value in a <title> (a tooltip).
 */
import { escape as escapeXml, groupDigits, html, raw, type Html } from '../html.js';

export interface Series {
  label: string;
  /** A CSS class of the stylesheet that colours it (chart-in, chart-out, chart-fee). */
  className: string;
  /** Decimal strings, one per day. */
  values: string[];
}

const WIDTH = 760;
const HEIGHT = 220;
const PAD = { left: 64, right: 12, top: 12, bottom: 36 };
const SCALE = 80;

/** A decimal string as an integer of SCALE fraction digits (the report's own precision). */
function units(v: string): bigint {
  const [whole = '0', fraction = ''] = v.split('.');
  return BigInt(whole + fraction.padEnd(SCALE, '0').slice(0, SCALE));
}

/** A readable rounding of a value for an axis (never used for money itself). */
function short(v: string): string {
  const [whole = '0', fraction = ''] = v.split('.');
  if (whole.length > 1 || whole !== '0') return groupDigits(fraction ? `${whole}.${fraction.slice(0, 2)}`.replace(/\.?0+$/, '') : whole);
  const digits = fraction.replace(/0+$/, '');
  return digits ? `0.${fraction.slice(0, Math.max(2, fraction.search(/[1-9]/) + 2))}`.replace(/0+$/, '') : '0';
}

export function barChart(opts: { title: string; days: string[]; series: Series[]; unit: string; testid: string }): Html {
  const { days, series } = opts;
  const max = series.flatMap((s) => s.values.map(units)).reduce((a, b) => (b > a ? b : a), 0n);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(days.length, 1);
  const barW = Math.max(1, (slot * 0.8) / Math.max(series.length, 1));
  const height = (v: bigint) => (max === 0n ? 0 : Number((v * 10_000n) / max) / 10_000) * plotH;
  const maxText = max === 0n ? '0' : short(formatScaled(max));
  const bars = series.flatMap((s, k) =>
    s.values.map((v, i) => {
      const h = height(units(v));
      const x = PAD.left + i * slot + slot * 0.1 + k * barW;
      const y = PAD.top + plotH - h;
      return `<rect class="${s.className}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${escapeXml(`${days[i]}: ${s.label} ${groupDigits(v)} ${opts.unit}`)}</title></rect>`;
    }),
  );
  const every = Math.ceil(days.length / 8);
  const ticks = days.flatMap((d, i) =>
    i % every === 0 || (i === days.length - 1 && i % every >= every / 2)
      ? [
          `<text class="tick" x="${(PAD.left + i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 14}" text-anchor="middle">${d.slice(5)}</text>`,
        ]
      : [],
  );
  const svg = [
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeXml(opts.title)}" data-testid="${escapeXml(opts.testid)}">`,
    `<line class="axis" x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${WIDTH - PAD.right}" y2="${PAD.top + plotH}"/>`,
    `<line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}"/>`,
    `<text class="tick" x="${PAD.left - 6}" y="${PAD.top + 10}" text-anchor="end">${escapeXml(maxText)}</text>`,
    `<text class="tick" x="${PAD.left - 6}" y="${PAD.top + plotH}" text-anchor="end">0</text>`,
    ...bars,
    ...ticks,
    '</svg>',
  ].join('');
  return html`<figure class="chart-figure">
    <figcaption>
      <strong>${opts.title}</strong>
      ${series.map((s) => html` <span class="legend ${s.className}">■</span> ${s.label}`)} <span class="muted small">(${opts.unit})</span>
    </figcaption>
    ${raw(svg)}
  </figure>`;
}

function formatScaled(v: bigint): string {
  const digits = v.toString().padStart(SCALE + 1, '0');
  const whole = digits.slice(0, digits.length - SCALE);
  const fraction = digits.slice(digits.length - SCALE).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
