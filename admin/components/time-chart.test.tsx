import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppProvider } from '@shopify/polaris';
import polarisEn from '@shopify/polaris/locales/en.json';
import { useAppStore } from '../stores/store';
import { TimeChart, niceMax, partialWhenToday } from './time-chart';
// Unmounts between tests (vitest runs without globals).
import '../test-utils';

function draw(kind: 'line' | 'bar' = 'line', partialLast?: string) {
  return render(
    <AppProvider i18n={polarisEn}>
      <TimeChart
        title="Players per day"
        kind={kind}
        days={['2025-03-01', '2025-03-02', '2025-03-03']}
        series={[
          { label: 'New', values: [1, 2, 3] },
          { label: 'Active', values: [10, 20, 1500] },
        ]}
        formatDay={(day) => day.slice(5)}
        partialLast={partialLast}
      />
    </AppProvider>,
  );
}

describe('the time chart', () => {
  it('is an image named by its title, with its numbers in a table for screen readers', () => {
    draw();
    expect(screen.getByRole('img', { name: 'Players per day' })).toBeTruthy();
    const table = screen.getByRole('table', { name: 'Players per day' });
    const row = within(table).getByRole('row', { name: /03-03/ });
    expect(within(row).getByText('1500')).toBeTruthy();
  });

  it('shows the values of the day under keyboard focus', () => {
    draw('bar');
    const chart = screen.getByRole('img', { name: 'Players per day' });
    fireEvent.keyDown(chart, { key: 'ArrowRight' });
    fireEvent.keyDown(chart, { key: 'ArrowRight' });
    const tooltip = screen.getByRole('status');
    expect(within(tooltip).getByText('03-02')).toBeTruthy();
    expect(within(tooltip).getByText('20')).toBeTruthy();
    fireEvent.keyDown(chart, { key: 'Escape' });
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('draws a day not over yet apart, and says so in the legend, the tooltip and the table', () => {
    const { container } = draw('line', 'Day not over yet');
    // Each line: solid up to the day before, then a dashed piece to the last day.
    const dashed = container.querySelectorAll('path[data-partial]');
    expect(dashed).toHaveLength(2);
    expect(dashed[0].getAttribute('stroke-dasharray')).toBe('4 4');
    const solid = container.querySelector('path:not([data-partial])')?.getAttribute('d') ?? '';
    expect(solid.match(/[ML]/g)).toHaveLength(2);
    expect(screen.getByText('Day not over yet')).toBeTruthy();
    const chart = screen.getByRole('img', { name: 'Players per day' });
    fireEvent.keyDown(chart, { key: 'ArrowLeft' });
    expect(within(screen.getByRole('status')).getByText('03-03 · Day not over yet')).toBeTruthy();
    expect(within(screen.getByRole('table', { name: 'Players per day' })).getByRole('rowheader', { name: '03-03 · Day not over yet' })).toBeTruthy();
  });

  it('draws the bars of a day not over yet pale, the other days as usual', () => {
    const { container } = draw('bar', 'Day not over yet');
    const partial = container.querySelectorAll('rect[data-partial]');
    expect(partial).toHaveLength(2);
    expect(partial[0].getAttribute('fill-opacity')).toBe('0.35');
    expect(container.querySelectorAll('svg[role="img"] rect:not([data-partial])')).toHaveLength(4);
  });

  it('draws every day alike without partialLast', () => {
    const { container } = draw('line');
    expect(container.querySelectorAll('[data-partial]')).toHaveLength(0);
    expect(screen.queryByText('Day not over yet')).toBeNull();
  });

  it("calls the last day not over only when it is today in the application's timezone", () => {
    const now = new Date('2025-03-03T00:30:00Z');
    expect(partialWhenToday(['2025-03-02', '2025-03-03'], 'so far', 0, now)).toBe('so far');
    expect(partialWhenToday(['2025-03-01', '2025-03-02'], 'so far', 0, now)).toBeUndefined();
    expect(partialWhenToday([], 'so far', 0, now)).toBeUndefined();
    // 00:30 UTC is still 2 March in UTC-03:00, and 17:30 UTC is already 4 March in UTC+07:00.
    expect(partialWhenToday(['2025-03-01', '2025-03-02'], 'so far', -180, now)).toBe('so far');
    expect(partialWhenToday(['2025-03-02', '2025-03-03'], 'so far', 420, new Date('2025-03-03T17:30:00Z'))).toBeUndefined();
    expect(partialWhenToday(['2025-03-03', '2025-03-04'], 'so far', 420, new Date('2025-03-03T17:30:00Z'))).toBe('so far');
  });

  it('marks a lone point with a dot, since one point draws no line', () => {
    const { container } = render(
      <AppProvider i18n={polarisEn}>
        <TimeChart title="Sent per hour" kind="line" days={['2025-03-01T10']} series={[{ label: 'Sent', values: [2] }, { label: 'Clicked', values: [0] }]} formatDay={(day) => day} />
      </AppProvider>,
    );
    expect(container.querySelectorAll('[data-testid="single-point"]')).toHaveLength(2);
    draw();
    // Lines of several points need no dots.
    expect(container.ownerDocument.querySelectorAll('[data-testid="single-point"]')).toHaveLength(2);
  });

  it('labels its axis with abbreviated round values, with the decimal mark of the console language', () => {
    draw();
    // 1,500 at most: four steps of 400. Vietnamese (the console's default) writes decimals with a comma.
    expect(screen.getByText('1,6k')).toBeTruthy();
    expect(screen.getByText('800')).toBeTruthy();
    try {
      act(() => useAppStore.getState().setLanguage('en'));
      expect(screen.getByText('1.6k')).toBeTruthy();
    } finally {
      act(() => useAppStore.getState().setLanguage('vi'));
    }
  });
});

describe('niceMax', () => {
  it('rounds the top of the axis up to four round whole steps', () => {
    expect(niceMax(1500)).toBe(1600);
    expect(niceMax(2100)).toBe(2400);
    expect(niceMax(37)).toBe(40);
    expect(niceMax(5)).toBe(8);
    expect(niceMax(0)).toBe(4);
  });

  it('puts every grid line on a whole number', () => {
    for (const value of [1, 3, 5, 7, 9, 13, 37, 99, 101, 999, 1234, 98765]) {
      const max = niceMax(value);
      expect(max).toBeGreaterThanOrEqual(value);
      expect(Number.isInteger(max / 4)).toBe(true);
    }
  });
});
