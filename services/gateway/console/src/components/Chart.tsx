import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { formatCredits, formatDay } from '../lib/format.js';
import { CHART_SERIES, seriesLabel } from '../lib/meters.js';
import { type Bar, niceMax } from '../lib/usage-chart.js';

/** The width drawn before the figure is measured. */
const FIRST_WIDTH = 720;
const HEIGHT = 260;
/** Room on the right for the last day's label, centred under its bar. */
const PAD = { top: 12, right: 24, bottom: 28, left: 48 };
/** About the width a day's label takes, so labels never touch. */
const LABEL_PX = 90;

/**
 * Credits per day as stacked bars, one colour per meter, drawn as inline SVG at the width of
 * its figure (one unit a pixel), so its labels keep their size on a phone. The SVG is one
 * image to assistive technology (role img and a summary as its name); the table below it
 * carries every figure, and each bar's tooltip its day's.
 */
export function Chart({ bars }: { bars: Bar[] }) {
  const figure = useRef<HTMLElement>(null);
  const width = useWidth(figure);
  const max = niceMax(Math.max(0, ...bars.map((b) => b.total)));
  const plotW = width - PAD.left - PAD.right;
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
  const labelEvery = Math.max(1, Math.ceil(bars.length / Math.max(2, Math.floor(plotW / LABEL_PX))));

  return (
    <figure class="chart" ref={figure}>
      <svg viewBox={`0 0 ${width} ${HEIGHT}`} width={width} height={HEIGHT} role="img" aria-label={label}>
        {ticks.map((t) => (
          <g key={t} class="axis">
            <line x1={PAD.left} x2={width - PAD.right} y1={y(t)} y2={y(t)} />
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
              <title>{tooltipOf(bar)}</title>
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
              {(bars.length - 1 - i) % labelEvery === 0 && (
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

/** A bar's day and figures, shown when the pointer rests on it. */
function tooltipOf(bar: Bar): string {
  const parts = bar.parts.map((p) => `${seriesLabel(p.series)} ${formatCredits(Math.round(p.credits * 1000) / 1000)}`);
  return `${formatDay(bar.day, 'long')}: ${formatCredits(bar.total)} credits${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** The element's width in pixels, followed as the window changes. */
function useWidth(element: { current: HTMLElement | null }): number {
  const [width, setWidth] = useState(FIRST_WIDTH);
  useLayoutEffect(() => {
    const el = element.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => {
      const measured = Math.floor(entry?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [element]);
  return width;
}
