/** The app's pages. Hash routing (`#/runs`) needs no server rewrite rules on static hosts. */
export const ROUTES = [
  { id: 'home', path: '/', label: 'Home', hint: 'Environment check and recent runs' },
  { id: 'benchmarks', path: '/benchmarks', label: 'Benchmarks', hint: 'Import and browse benchmark cases' },
  { id: 'models', path: '/models', label: 'Models', hint: 'Download, import and test models' },
  { id: 'runs', path: '/runs', label: 'Runs', hint: 'Plan, start and resume evaluation runs' },
  { id: 'results', path: '/results', label: 'Results', hint: 'Scores, breakdowns and reports' },
  { id: 'review', path: '/review', label: 'Review', hint: 'Clinician review of model answers' },
  { id: 'readers', path: '/readers', label: 'Reader study', hint: 'Clinicians answer the same cases blind' },
  { id: 'settings', path: '/settings', label: 'Settings', hint: 'Storage, network policy and about' },
] as const;

/** What an unknown path shows: a page of its own, not in the navigation, with a way home. */
export const NOT_FOUND = { id: 'not-found', path: '', label: 'Page not found', hint: 'No page has this address' } as const;

export type Route = (typeof ROUTES)[number] | typeof NOT_FOUND;

/** Maps a location hash (`#/runs?x=1`) to a route; unknown paths map to NOT_FOUND. */
export function routeFromHash(hash: string): Route {
  return parseHash(hash).route;
}

/** True for a hash that names a page (`#/…` or none), false for an in-page anchor such as the skip link's `#main`. */
export function isRouteHash(hash: string): boolean {
  const raw = hash.replace(/^#/, '');
  return raw === '' || raw.startsWith('/');
}

/**
 * Splits a hash into its route and the path segments after it, decoded:
 * `#/benchmarks/demo/case%201` → benchmarks, ['demo', 'case 1'].
 * An unknown first segment is NOT_FOUND, with the unknown path as its one parameter.
 */
export function parseHash(hash: string): { route: Route; params: string[] } {
  if (!isRouteHash(hash)) return { route: ROUTES[0], params: [] };
  const path = hash.replace(/^#/, '').split('?')[0] || '/';
  const [first = '', ...rest] = path.replace(/^\//, '').split('/');
  const route = ROUTES.find((r) => r.path === `/${first}`);
  if (!route) return { route: NOT_FOUND, params: [safeDecode(path)] };
  if (route.id === 'home') return { route, params: [] };
  return { route, params: rest.filter(Boolean).map((s) => safeDecode(s)) };
}

/** decodeURIComponent that leaves a malformed escape (`%E0`) as typed instead of throwing. */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Builds a hash path from a route path and segments, encoding each segment. */
export function hashPath(routePath: string, ...params: string[]): string {
  return [routePath === '/' ? '' : routePath, ...params.map((p) => encodeURIComponent(p))].join('/') || '/';
}
