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

export type RouteId = (typeof ROUTES)[number]['id'];
export type Route = (typeof ROUTES)[number];

/** Maps a location hash (`#/runs?x=1`) to a route; unknown paths fall back to Home. */
export function routeFromHash(hash: string): Route {
  const path = hash.replace(/^#/, '').split('?')[0] || '/';
  return ROUTES.find((r) => r.path === path) ?? ROUTES[0];
}
