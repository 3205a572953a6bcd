import type { FC } from 'hono/jsx';

export interface PlotSeries {
  label: string;
  color: string;
  /** One value per x label. */
  data: readonly number[];
}

const W = 640;
const H = 240;
const PAD = { left: 44, right: 12, top: 28, bottom: 40 };

/** A round upper bound for the y axis with 4 ticks: 1, 2 or 5 times a power of ten per tick. */
function scaleMax(max: number): number {
  if (max <= 0) return 4;
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  return Math.max(4, step * 4);
}

/**
 * A line plot drawn on the server as SVG: no script and no request of its own, so it shows under the console's
 * strict CSP (presentation attributes, not style). Its title and the table beside it are the accessible reading.
 */
export const LinePlot: FC<{ label: string; labels: readonly string[]; series: readonly PlotSeries[] }> = ({ label, labels, series }) => {
  const top = scaleMax(Math.max(0, ...series.flatMap((s) => s.data)));
  const width = W - PAD.left - PAD.right;
  const height = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (labels.length <= 1 ? width / 2 : (i * width) / (labels.length - 1));
  const y = (v: number) => PAD.top + height - (v / top) * height;
  // At most 6 x labels, evenly spread, the last always among them.
  const every = Math.max(1, Math.ceil(labels.length / 6));
  const shown = labels.map((_, i) => i).filter((i) => i % every === 0 || i === labels.length - 1);
  return (
    <svg class="plot" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} xmlns="http://www.w3.org/2000/svg">
      <title>{label}</title>
      {[0, 1, 2, 3, 4].map((t) => (
        <g>
          <line x1={PAD.left} x2={W - PAD.right} y1={y((top * t) / 4)} y2={y((top * t) / 4)} stroke="#d0d7de" stroke-width="1" />
          <text x={PAD.left - 6} y={y((top * t) / 4) + 4} text-anchor="end" font-size="11" fill="#57606a">
            {String((top * t) / 4)}
          </text>
        </g>
      ))}
      {shown.map((i) => (
        <text x={x(i)} y={H - PAD.bottom + 16} text-anchor="middle" font-size="11" fill="#57606a">
          {labels[i]}
        </text>
      ))}
      {series.map((s, n) => (
        <g data-series={s.label}>
          <polyline
            fill="none"
            stroke={s.color}
            stroke-width="2"
            stroke-dasharray={n === 0 ? undefined : '6 3'}
            points={s.data.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
          />
          {s.data.map((v, i) => (
            <circle cx={x(i).toFixed(1)} cy={y(v).toFixed(1)} r="2.5" fill={s.color}>
              <title>{`${s.label}, ${labels[i]}: ${v}`}</title>
            </circle>
          ))}
          <rect x={PAD.left + n * 150} y={8} width="12" height="12" fill={s.color} />
          <text x={PAD.left + n * 150 + 18} y={18} font-size="12" fill="#1f2328">
            {s.label}
          </text>
        </g>
      ))}
    </svg>
  );
};

/** Every UTC hour from the first to the last given (`2026-03-02T10`), so that quiet hours plot as zero. */
export function hoursBetween(first: string, last: string): string[] {
  const hours: string[] = [];
  const end = Date.parse(`${last}:00:00Z`);
  for (let t = Date.parse(`${first}:00:00Z`); t <= end && hours.length < 24 * 15; t += 3_600_000)
    hours.push(new Date(t).toISOString().slice(0, 13));
  return hours;
}
