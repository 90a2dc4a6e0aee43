import { describe, expect, it } from 'vitest';
import { ROUTES, routeFromHash } from '../../../src/app/routes.ts';

describe('routes', () => {
  it('has the seven pages in navigation order', () => {
    expect(ROUTES.map((r) => r.label)).toEqual(['Home', 'Benchmarks', 'Models', 'Runs', 'Results', 'Review', 'Settings']);
  });
  it('maps hashes to pages and unknown ones to Home', () => {
    expect(routeFromHash('').id).toBe('home');
    expect(routeFromHash('#/runs').id).toBe('runs');
    expect(routeFromHash('#/review?item=3').id).toBe('review');
    expect(routeFromHash('#/nowhere').id).toBe('home');
  });
});
