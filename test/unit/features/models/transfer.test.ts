import { describe, expect, it, vi } from 'vitest';
import { Transfer } from '../../../../src/features/models/transfer.svelte.ts';

describe('transfer progress', () => {
  it('reports bytes, speed over the last seconds and time left', () => {
    const now = vi.spyOn(performance, 'now');
    now.mockReturnValue(0);
    const t = new Transfer('Download X', 'download');
    t.start(10_000_000);
    expect(t.speed).toBe(0);
    expect(t.etaSeconds).toBeNull();
    now.mockReturnValue(1000);
    t.advance(2_000_000);
    now.mockReturnValue(2000);
    t.advance(2_000_000);
    expect(t.done).toBe(4_000_000);
    expect(t.speed).toBeCloseTo(2_000_000, -3);
    expect(t.etaSeconds).toBeCloseTo(3, 5);
    now.mockRestore();
  });
});
