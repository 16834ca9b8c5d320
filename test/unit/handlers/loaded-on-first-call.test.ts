// Stand-ins that load their part on the first call: nothing loads before, one load serves every caller, a failed
// load is tried again, and the immediate members answer without loading.
import { describe, expect, it } from 'vitest';
import { loadedOnFirstCall } from '../../../lambda/handlers/loaded-on-first-call.js';

interface Part {
  readonly name: () => string;
  double(value: number): Promise<number>;
  triple(value: number): Promise<number>;
}

function counting(failures = 0): { load: () => Promise<Part>; loads: () => number } {
  let loads = 0;
  const part: Part = {
    name: () => 'real',
    double: (value) => Promise.resolve(value * 2),
    triple: (value) => Promise.resolve(value * 3),
  };
  return {
    load: () => (++loads <= failures ? Promise.reject(new Error(`load ${loads} failed`)) : Promise.resolve(part)),
    loads: () => loads,
  };
}

describe('loadedOnFirstCall', () => {
  it('loads nothing until an async method is called, then forwards to the loaded part', async () => {
    const { load, loads } = counting();
    const part = loadedOnFirstCall<Part>(load, { name: () => 'immediate' });
    expect(loads()).toBe(0);
    expect(await part.double(21)).toBe(42);
    expect(loads()).toBe(1);
  });

  it('loads once for concurrent and later calls of any method', async () => {
    const { load, loads } = counting();
    const part = loadedOnFirstCall<Part>(load, { name: () => 'immediate' });
    expect(await Promise.all([part.double(1), part.triple(1), part.double(2)])).toEqual([2, 3, 4]);
    expect(await part.triple(3)).toBe(9);
    expect(loads()).toBe(1);
  });

  it('answers the immediate members without loading', () => {
    const { load, loads } = counting();
    const part = loadedOnFirstCall<Part>(load, { name: () => 'immediate' });
    expect(part.name()).toBe('immediate');
    expect(loads()).toBe(0);
  });

  it('fails the call whose load failed, and loads again on the next call', async () => {
    const { load, loads } = counting(1);
    const part = loadedOnFirstCall<Part>(load, { name: () => 'immediate' });
    await expect(part.double(1)).rejects.toThrow('load 1 failed');
    expect(await part.double(1)).toBe(2);
    expect(loads()).toBe(2);
  });

  it('is not a thenable, so an async function can return it without awaiting a load', async () => {
    const { load, loads } = counting();
    const part = loadedOnFirstCall<Part>(load, { name: () => 'immediate' });
    const returned = await (async () => part)();
    expect(returned).toBe(part);
    expect(loads()).toBe(0);
  });
});
