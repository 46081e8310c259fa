import { formatCredits, formatDay } from '../lib/format.js';
import { CHART_SERIES, seriesLabel } from '../lib/meters.js';
import { type Bar, niceMax } from '../lib/usage-chart.js';

const WIDTH = 720;
const HEIGHT = 260;
const PAD = { top: 12, right: 8, bottom: 28, left: 48 };

/**
 * Credits per day as stacked bars, one colour per meter, drawn as inline SVG. The SVG is one
 * image to assistive technology (role img and a summary as its name); the table below it
 * carries every figure.
 */
export function Chart({ bars }: { bars: Bar[] }) {
  const max = niceMax(Math.max(0, ...bars.map((b) => b.total)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, bars.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (credits: number) => PAD.top + plotH - (credits / max) * plotH;
  const total = bars.reduce((sum, b) => sum + b.total, 0);
  const first = bars[0]?.day;
  const last = bars.at(-1)?.day;
  const label = `Credits per day by meter, ${first ? formatDay(first, 'long') : ''} to ${last ? formatDay(last, 'long') : ''}: ${formatCredits(total)} credits in all. The table below has every figure.`;
  const used = CHART_SERIES.filter((s) => bars.some((b) => b.parts.some((p) => p.series === s)));
  const ticks = [0, max / 2, max];
  const labelEvery = Math.ceil(bars.length / 6);

  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="xMidYMid meet">
        {ticks.map((t) => (
          <g key={t} class="axis">
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(t)} y2={y(t)} />
            <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end">
              {formatCredits(t)}
            </text>
          </g>
        ))}
        {bars.map((bar, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          let top = 0;
          return (
            <g key={bar.day}>
              {bar.parts.map((part) => {
                const y1 = y(top + part.credits);
                const h = y(top) - y1;
                top += part.credits;
                return (
                  <rect
                    key={part.series}
                    class={`series-${CHART_SERIES.indexOf(part.series as (typeof CHART_SERIES)[number])}`}
                    x={x}
                    y={y1}
                    width={barW}
                    height={Math.max(h, 0.5)}
                  />
                );
              })}
              {i % labelEvery === 0 && (
                <text class="day" x={x + barW / 2} y={HEIGHT - 8} text-anchor="middle">
                  {formatDay(bar.day)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        {used.length === 0 ? (
          'No credits were spent in this period.'
        ) : (
          <ul class="legend" aria-label="Meters">
            {used.map((s) => (
              <li key={s}>
                <span class={`swatch series-${CHART_SERIES.indexOf(s)}`} aria-hidden="true" />
                {seriesLabel(s)}
              </li>
            ))}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}
