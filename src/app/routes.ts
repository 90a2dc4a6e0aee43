/** The app's pages. Hash routing (`#/runs`) needs no server rewrite rules on static hosts. */
export const ROUTES = [
  { id: 'home', path: '/', label: 'Home', hint: 'Environment check and recent runs' },
  { id: 'benchmarks', path: '/benchmarks', label: 'Benchmarks', hint: 'Import and browse benchmark cases' },
  { id: 'models', path: '/models', label: 'Models', hint: 'Download, import and test models' },
  { id: 'runs', path: '/runs', label: 'Runs', hint: 'Plan, start and resume evaluation runs' },
  { id: 'results', path: '/results', label: 'Results', hint: 'Scores, breakdowns and reports' },
  { id: 'review', path: '/review', label: 'Review', hint: 'Clinician review of model answers' },
  { id: 'settings', path: '/settings', label: 'Settings', hint: 'Storage, network policy and about' },
] as const;

export type Route = (typeof ROUTES)[number];

/** Maps a location hash (`#/runs?x=1`) to a route; unknown paths fall back to Home. */
export function routeFromHash(hash: string): Route {
  return parseHash(hash).route;
}

/**
 * Splits a hash into its route and the path segments after it, decoded:
 * `#/benchmarks/demo/case%201` → benchmarks, ['demo', 'case 1'].
 */
export function parseHash(hash: string): { route: Route; params: string[] } {
  const path = hash.replace(/^#/, '').split('?')[0] || '/';
  const [first = '', ...rest] = path.replace(/^\//, '').split('/');
  const route = ROUTES.find((r) => r.path === `/${first}`) ?? ROUTES[0];
  if (route.id === 'home' && first !== '') return { route, params: [] };
  return { route, params: rest.filter(Boolean).map((s) => decodeURIComponent(s)) };
}

/** Builds a hash path from a route path and segments, encoding each segment. */
export function hashPath(routePath: string, ...params: string[]): string {
  return [routePath === '/' ? '' : routePath, ...params.map((p) => encodeURIComponent(p))].join('/') || '/';
}
