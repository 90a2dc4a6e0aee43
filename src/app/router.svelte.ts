import { routeFromHash, type Route } from './routes.ts';

/** Current page, kept in sync with `location.hash`. */
class Router {
  #route = $state<Route>(routeFromHash(location.hash));

  constructor() {
    window.addEventListener('hashchange', () => {
      this.#route = routeFromHash(location.hash);
    });
  }

  get route(): Route {
    return this.#route;
  }

  /** `href` for a link to a route path. */
  href(path: string): string {
    return `#${path}`;
  }
}

export const router = new Router();
