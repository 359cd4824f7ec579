import { describe, expect, it } from 'vitest';
import { inkOn, labelSize, labelTransform, landingRotation, slicePath } from './wheel';

/** The slice under the pointer (at the top) after the wheel has turned `rotation` degrees clockwise. */
const sliceAtPointer = (rotation: number, count: number) => Math.floor((((360 - (rotation % 360)) % 360) / 360) * count);

describe('the wheel landing', () => {
  it("stops with the server's slice under the pointer, after several whole turns, whatever the offset", () => {
    for (const count of [2, 3, 5, 8, 12]) {
      for (let index = 0; index < count; index++) {
        for (const offset of [-0.5, -0.2, 0, 0.3, 0.5]) {
          const from = 1234.5;
          const to = landingRotation(index, count, from, offset);
          expect(sliceAtPointer(to, count), `${index}/${count} offset ${offset}`).toBe(index);
          expect(to - from).toBeGreaterThanOrEqual(5 * 360);
        }
      }
    }
  });

  it('keeps the pointer clear of the slice edges', () => {
    const count = 6;
    const to = landingRotation(2, count, 0, 0.5);
    const pointerAngle = (360 - (to % 360)) % 360;
    const within = pointerAngle - 2 * 60;
    expect(within).toBeGreaterThan(5);
    expect(within).toBeLessThan(55);
  });
});

describe('the slices', () => {
  it('start at the top and go clockwise', () => {
    expect(slicePath(0, 4)).toBe('M0 0L0 -100A100 100 0 0 1 100 0Z');
    expect(slicePath(3, 4)).toBe('M0 0L-100 0A100 100 0 0 1 0 -100Z');
  });

  it('label in dark ink on light colours and in white on dark ones', () => {
    expect(inkOn('#ffeb3b')).toBe('#202223');
    expect(inkOn('#fff')).toBe('#202223');
    expect(inkOn('#1a237e')).toBe('#ffffff');
  });
});

describe('the labels', () => {
  it('read outward on the right half and are turned round on the left half, never upside down', () => {
    expect(labelTransform(0, 4)).toBe('rotate(-45) translate(60 3)');
    expect(labelTransform(1, 4)).toBe('rotate(45) translate(60 3)');
    expect(labelTransform(2, 4)).toBe('rotate(315) translate(-60 3)');
    expect(labelTransform(3, 4)).toBe('rotate(405) translate(-60 3)');
  });

  it('shrink to fit a long label between the hub and the rim', () => {
    expect(labelSize('10% off', 6)).toBe(12);
    expect(labelSize('Free shipping', 6)).toBeLessThan(12);
    expect(labelSize('Free shipping', 6) * 'Free shipping'.length * 0.78).toBeLessThan(75);
    expect(labelSize('Hi', 12)).toBe(9);
  });
});
