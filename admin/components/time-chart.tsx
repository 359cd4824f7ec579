import { BlockStack, InlineStack, Text } from '@shopify/polaris';
import { useEffect, useId, useRef, useState } from 'react';
import { useFormatNumber, useAbbreviateNumber } from '../app/i18n';
import { dayAtOffset } from '../../shared/format';

/** One line or set of bars of a chart. */
export interface ChartSeries {
  label: string;
  /** One value per entry of `days`. */
  values: readonly number[];
}

export interface TimeChartProps {
  /** The accessible name of the chart (also its visually hidden table's caption). */
  title: string;
  /** The x axis: one label per point (a day). */
  days: readonly string[];
  series: readonly ChartSeries[];
  /** Lines (trends) or grouped bars (amounts per day). */
  kind?: 'line' | 'bar';
  /** Height of the plot in px. */
  height?: number;
  /** How a day reads under the axis and in the tooltip. */
  formatDay?(day: string): string;
  /**
   * The last point's day is not over (today): what to call it, e.g. "Today so far". It is then drawn apart, dashed
   * (lines) or pale with a dashed edge (bars), as analytics tools draw incomplete data, and named so in the legend,
   * the tooltip and the table, so that a day that has only begun does not read as a fall.
   */
  partialLast?: string;
}

/**
 * `partialLast` when the last of `days` (days of the application's timezone, `utcOffset` minutes east of UTC, as
 * the API counts them) is today there, which is not over yet.
 */
export function partialWhenToday(days: readonly string[], label: string, utcOffset: number, now: Date = new Date()): string | undefined {
  return days.length > 0 && days[days.length - 1] === dayAtOffset(now.getTime(), utcOffset) ? label : undefined;
}

/** Polaris' emphasis blue, then magic purple, then success green: the colours of its own analytics cards. */
const COLOURS = ['var(--p-color-bg-fill-emphasis)', 'var(--p-color-bg-fill-magic)', 'var(--p-color-bg-fill-success)'];
const AXIS_WIDTH = 40;
const VISUALLY_HIDDEN = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;
const BOTTOM = 22;
const TOP = 8;

/**
 * A round top for the y axis of counts: four times a round whole step (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times
 * a power of ten), so each of the four grid lines lands on a whole number that reads well.
 */
export function niceMax(value: number): number {
  if (value <= 4) return 4;
  const raw = value / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    const step = factor * power;
    if (Number.isInteger(step) && step >= raw) return 4 * step;
  }
  return 40 * power;
}

/** The container's width, followed as it changes (the chart is drawn at its real size, so text never shrinks). */
function useWidth(fallback: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const next = element.getBoundingClientRect().width;
      if (next > 0) setWidth(Math.round(next));
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/**
 * A small SVG chart over days in Polaris' style: grid lines with abbreviated values, a legend, a tooltip
 * for the day under the pointer or keyboard focus (arrow keys), and the same numbers in a visually hidden
 * table for screen readers.
 */
export function TimeChart({ title, days, series, kind = 'line', height = 180, formatDay = (day) => day, partialLast }: TimeChartProps) {
  const abbreviate = useAbbreviateNumber();
  const { ref, width } = useWidth(600);
  const number = useFormatNumber();
  const titleId = useId();
  const [active, setActive] = useState<number | null>(null);
  const plotWidth = Math.max(60, width - AXIS_WIDTH - 8);
  const plotHeight = height - BOTTOM - TOP;
  const max = niceMax(Math.max(0, ...series.flatMap((line) => line.values)));
  const count = Math.max(1, days.length);
  const slot = plotWidth / count;
  const x = (index: number) => AXIS_WIDTH + (kind === 'bar' ? slot * index + slot / 2 : count === 1 ? plotWidth / 2 : (plotWidth * index) / (count - 1));
  const y = (value: number) => TOP + plotHeight - (plotHeight * value) / max;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => max * share);
  const labelEvery = Math.max(1, Math.ceil(count / Math.max(2, Math.floor(plotWidth / 72))));

  function pointAt(clientX: number, box: DOMRect) {
    const offset = clientX - box.left - AXIS_WIDTH;
    const index = kind === 'bar' ? Math.floor(offset / slot) : Math.round(count === 1 ? 0 : (offset / plotWidth) * (count - 1));
    return Math.min(count - 1, Math.max(0, index));
  }

  const barWidth = Math.max(1, Math.min(18, (slot * 0.8) / Math.max(1, series.length)));
  /** The index of the day not over yet, or -1. */
  const partial = partialLast && days.length > 0 ? days.length - 1 : -1;
  const dayLabel = (index: number) => (index === partial ? `${formatDay(days[index])} · ${partialLast}` : formatDay(days[index]));

  return (
    <BlockStack gap="200">
      <InlineStack gap="400" wrap>
        {series.map((line, index) => (
          <InlineStack key={line.label} gap="150" blockAlign="center" wrap={false}>
            <span aria-hidden style={{ width: 12, height: 12, borderRadius: 3, background: COLOURS[index % COLOURS.length], display: 'inline-block' }} />
            <Text as="span" variant="bodySm" tone="subdued">
              {line.label}
            </Text>
          </InlineStack>
        ))}
        {partial >= 0 ? (
          <InlineStack gap="150" blockAlign="center" wrap={false}>
            <svg aria-hidden width={16} height={12} style={{ display: 'block' }}>
              {kind === 'bar' ? (
                <rect x={2} y={1} width={11} height={10} rx={2} fill="var(--p-color-text-secondary)" fillOpacity={0.3} stroke="var(--p-color-text-secondary)" strokeDasharray="2 2" />
              ) : (
                <line x1={0} x2={16} y1={6} y2={6} stroke="var(--p-color-text-secondary)" strokeWidth={2} strokeDasharray="3 3" />
              )}
            </svg>
            <Text as="span" variant="bodySm" tone="subdued">
              {partialLast}
            </Text>
          </InlineStack>
        ) : null}
      </InlineStack>
      <div ref={ref} style={{ position: 'relative', width: '100%' }}>
        <svg
          role="img"
          aria-labelledby={titleId}
          width={width}
          height={height}
          tabIndex={0}
          style={{ display: 'block', outline: 'none', touchAction: 'pan-y' }}
          onMouseMove={(event) => setActive(pointAt(event.clientX, event.currentTarget.getBoundingClientRect()))}
          onMouseLeave={() => setActive(null)}
          onBlur={() => setActive(null)}
          onKeyDown={(event) => {
            if (event.key === 'ArrowRight') setActive((n) => Math.min(count - 1, (n ?? -1) + 1));
            else if (event.key === 'ArrowLeft') setActive((n) => Math.max(0, (n ?? count) - 1));
            else if (event.key === 'Escape') setActive(null);
            else return;
            event.preventDefault();
          }}
        >
          <title id={titleId}>{title}</title>
          {ticks.map((tick) => (
            <g key={tick}>
              <line x1={AXIS_WIDTH} x2={AXIS_WIDTH + plotWidth} y1={y(tick)} y2={y(tick)} stroke="var(--p-color-border-secondary)" strokeDasharray={tick === 0 ? undefined : '2 3'} />
              <text x={AXIS_WIDTH - 6} y={y(tick) + 4} textAnchor="end" fontSize="11" fill="var(--p-color-text-secondary)">
                {abbreviate(tick)}
              </text>
            </g>
          ))}
          {days.map((day, index) =>
            index % labelEvery === 0 ? (
              <text key={day} x={x(index)} y={height - 6} textAnchor={kind === 'line' && index === 0 ? 'start' : kind === 'line' && index === count - 1 && count > 1 ? 'end' : 'middle'} fontSize="11" fill="var(--p-color-text-secondary)">
                {formatDay(day)}
              </text>
            ) : null,
          )}
          {active !== null ? (
            <line x1={x(active)} x2={x(active)} y1={TOP} y2={TOP + plotHeight} stroke="var(--p-color-border)" />
          ) : null}
          {series.map((line, seriesIndex) => {
            const colour = COLOURS[seriesIndex % COLOURS.length];
            if (kind === 'bar') {
              return (
                <g key={line.label} fill={colour}>
                  {line.values.map((value, index) => (
                    <rect
                      key={days[index] ?? index}
                      data-partial={index === partial || undefined}
                      x={x(index) - (barWidth * series.length) / 2 + barWidth * seriesIndex}
                      y={y(value)}
                      width={Math.max(1, barWidth - 1)}
                      height={Math.max(0, TOP + plotHeight - y(value))}
                      rx={Math.min(2, barWidth / 4)}
                      opacity={active === null || active === index ? 1 : 0.45}
                      {...(index === partial ? { fillOpacity: 0.35, stroke: colour, strokeDasharray: '2 2' } : {})}
                    />
                  ))}
                </g>
              );
            }
            const point = (value: number, index: number) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`;
            // The day not over yet: its own dashed piece from the day before.
            const solid = partial > 0 ? line.values.slice(0, partial) : line.values;
            const path = solid.map((value, index) => `${index === 0 ? 'M' : 'L'}${point(value, index)}`).join('');
            return (
              <g key={line.label}>
                <path d={path} fill="none" stroke={colour} strokeWidth={2} strokeLinejoin="round" strokeLinecap="round" />
                {partial > 0 && line.values[partial] !== undefined ? (
                  <path
                    data-partial
                    d={`M${point(line.values[partial - 1], partial - 1)}L${point(line.values[partial], partial)}`}
                    fill="none"
                    stroke={colour}
                    strokeWidth={2}
                    strokeDasharray="4 4"
                    strokeLinecap="round"
                  />
                ) : null}
                {/* One point draws no line: a dot shows it (a message sent within its first hour). */}
                {line.values.length === 1 && active === null ? <circle data-testid="single-point" cx={x(0)} cy={y(line.values[0])} r={3} fill={colour} /> : null}
                {active !== null && line.values[active] !== undefined ? (
                  <circle cx={x(active)} cy={y(line.values[active])} r={4} fill={colour} stroke="var(--p-color-bg-surface)" strokeWidth={2} />
                ) : null}
              </g>
            );
          })}
        </svg>
        {active !== null && days[active] !== undefined ? (
          <div
            role="status"
            style={{
              position: 'absolute',
              top: 0,
              left: Math.min(Math.max(0, x(active) - 70), Math.max(0, width - 150)),
              minWidth: 140,
              pointerEvents: 'none',
              background: 'var(--p-color-bg-surface)',
              boxShadow: 'var(--p-shadow-300)',
              borderRadius: 'var(--p-border-radius-200)',
              padding: '6px 10px',
            }}
          >
            <Text as="p" variant="bodySm" fontWeight="semibold">
              {dayLabel(active)}
            </Text>
            {series.map((line, index) => (
              <InlineStack key={line.label} gap="200" align="space-between" wrap={false}>
                <InlineStack gap="100" blockAlign="center" wrap={false}>
                  <span aria-hidden style={{ width: 8, height: 8, borderRadius: 2, background: COLOURS[index % COLOURS.length], display: 'inline-block' }} />
                  <Text as="span" variant="bodySm">
                    {line.label}
                  </Text>
                </InlineStack>
                <Text as="span" variant="bodySm" numeric>
                  {number(line.values[active] ?? 0)}
                </Text>
              </InlineStack>
            ))}
          </div>
        ) : null}
      </div>
      <div style={VISUALLY_HIDDEN}>
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">{title}</th>
              {series.map((line) => (
                <th key={line.label} scope="col">
                  {line.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day, index) => (
              <tr key={day}>
                <th scope="row">{dayLabel(index)}</th>
                {series.map((line) => (
                  <td key={line.label}>{line.values[index] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </BlockStack>
  );
}
