/** The wheel's geometry: an SVG of radius 100 centred on 0,0, slice 0 starting under the pointer at the top. */

const round = (n: number) => Math.round(n * 100) / 100;
const point = (turn: number) => {
  const a = turn * 2 * Math.PI - Math.PI / 2;
  return `${round(Math.cos(a) * 100)} ${round(Math.sin(a) * 100)}`;
};

/** The SVG path of slice `index` of `count`, clockwise from the top. */
export function slicePath(index: number, count: number): string {
  return `M0 0L${point(index / count)}A100 100 0 0 1 ${point((index + 1) / count)}Z`;
}

/**
 * The wheel's next rotation (degrees, clockwise) that brings slice `index` under the pointer after at
 * least `turns` whole turns from `from`. `offset` (-0.5 … 0.5) moves the landing point within the slice,
 * keeping clear of its edges, so the wheel doesn't stop dead centre every time.
 */
export function landingRotation(index: number, count: number, from: number, offset = 0, turns = 6): number {
  const slice = 360 / count;
  const target = (index + 0.5 + offset * 0.7) * slice;
  const base = from - (((from % 360) + 360) % 360);
  return base + turns * 360 + ((360 - target) % 360);
}

/** Black or white text, whichever reads better on the slice colour (#rgb or #rrggbb). */
export function inkOn(color: string): string {
  const hex = color.length === 4 ? color.replace(/\w/g, '$&$&') : color;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return r * 0.299 + g * 0.587 + b * 0.114 > 160 ? '#202223' : '#ffffff';
}

/**
 * Where slice `index`'s label goes: along its middle radius, centred 60 from the hub, reading outward on
 * the right half and turned half round on the left half so that no label is upside down.
 */
export function labelTransform(index: number, count: number): string {
  const middle = ((index + 0.5) * 360) / count;
  return middle > 180 ? `rotate(${middle + 90}) translate(-60 3)` : `rotate(${middle - 90}) translate(60 3)`;
}

/**
 * A label's font size: smaller on a crowded wheel, and small enough for a long label to fit in the 75
 * units between hub and rim even in a wide bold font (about 0.78 em a character).
 */
export function labelSize(label: string, count: number): number {
  const byCount = count > 8 ? 9 : count > 5 ? 12 : 14;
  return Math.min(byCount, Math.floor((96 / Math.max(label.length, 1)) * 10) / 10);
}
