import { hashPath, isRouteHash, parseHash, type Route } from './routes.ts';

/** Current page and its path parameters, kept in sync with `location.hash`. */
class Router {
  #state = $state(parseHash(location.hash));

  constructor() {
    window.addEventListener('hashchange', () => {
      // An in-page anchor (the skip link's #main) moves focus, not the page.
      if (isRouteHash(location.hash)) this.#state = parseHash(location.hash);
    });
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
