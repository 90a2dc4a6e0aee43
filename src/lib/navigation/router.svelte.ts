import { hashPath, isRouteHash, parseHash, type Route } from './routes.ts';

/** A page and its path parameters. */
export interface RouteAt {
  readonly route: Route;
  readonly params: readonly string[];
}

/** Current page and its path parameters, kept in sync with `location.hash`. */
class Router {
  #state = $state(parseHash(location.hash));
  readonly #listeners = new Set<(to: RouteAt) => void>();

  constructor() {
    window.addEventListener('hashchange', () => {
      // An in-page anchor (the skip link's #main) moves focus, not the page.
      if (!isRouteHash(location.hash)) return;
      const to = parseHash(location.hash);
      for (const listener of this.#listeners) listener(to);
      this.#state = to;
    });
  }

  /**
   * Calls `listener` with each new route as the hash changes, before the
   * page is swapped: work a page will ask a worker for can start while the
   * old page is torn down and the new one's code loads.
   */
  onNavigate(listener: (to: RouteAt) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get route(): Route {
    return this.#state.route;
  }

  /** Path segments after the route, e.g. `['demo', 'case-1']` for `#/benchmarks/demo/case-1`. */
  get params(): readonly string[] {
    return this.#state.params;
  }

  /** `href` for a link to a route path with optional segments. */
  href(path: string, ...params: string[]): string {
    return `#${hashPath(path, ...params)}`;
  }

  navigate(path: string, ...params: string[]): void {
    location.hash = hashPath(path, ...params);
  }
}

export const router = new Router();
