import { describe, expect, it } from 'vitest';
import { NOT_FOUND, ROUTES, hashPath, isRouteHash, parseHash, routeFromHash } from '../../../../src/lib/navigation/routes.ts';

describe('routes', () => {
  it('has the eight pages in navigation order', () => {
    expect(ROUTES.map((r) => r.label)).toEqual(['Home', 'Benchmarks', 'Models', 'Runs', 'Results', 'Review', 'Reader study', 'Settings']);
  });
  it('maps hashes to pages and unknown ones to the not-found page, naming the path', () => {
    expect(routeFromHash('').id).toBe('home');
    expect(routeFromHash('#/').id).toBe('home');
    expect(routeFromHash('#/runs').id).toBe('runs');
    expect(routeFromHash('#/review?item=3').id).toBe('review');
    expect(parseHash('#/nowhere/x')).toEqual({ route: NOT_FOUND, params: ['/nowhere/x'] });
    expect(parseHash('#/%E0%A4%A')).toEqual({ route: NOT_FOUND, params: ['/%E0%A4%A'] });
  });
  it('treats an in-page anchor as no change of page', () => {
    expect(isRouteHash('#main')).toBe(false);
    expect(isRouteHash('#/runs')).toBe(true);
    expect(isRouteHash('')).toBe(true);
    expect(routeFromHash('#main').id).toBe('home');
  });
});

describe('route parameters', () => {
  it('splits and decodes the segments after the route', () => {
    expect(parseHash('#/benchmarks/neuroeval-demo/case%201')).toMatchObject({ route: { id: 'benchmarks' }, params: ['neuroeval-demo', 'case 1'] });
    expect(parseHash('#/benchmarks')).toMatchObject({ route: { id: 'benchmarks' }, params: [] });
    expect(parseHash('#/unknown/x').route.id).toBe('not-found');
  });
  it('builds hashes that parse back to the same segments', () => {
    const h = hashPath('/benchmarks', 'a/b', 'sclerosis/MS/A1 (414).png');
    expect(parseHash(`#${h}`).params).toEqual(['a/b', 'sclerosis/MS/A1 (414).png']);
    expect(hashPath('/')).toBe('/');
  });
});
