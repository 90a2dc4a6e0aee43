/**
 * Finds what a reader would see as broken layout: an element whose content
 * runs past its box sideways, text cut off by its box (an ellipsis or
 * overflow: hidden), and a chart's text drawn outside its picture (a cut
 * legend). A box that scrolls on purpose (overflow-x auto/scroll) is allowed
 * while it shows a scroll cue (WideTable's `data-scroll-cue="shown"`), and
 * never on paper, where the part out of view is cut; the page as a whole
 * must never scroll sideways. Runs in the page (page.evaluate), so it uses
 * only DOM APIs.
 */
export interface LayoutProblem {
  readonly kind: 'page overflows' | 'overflows its box' | 'text clipped' | 'chart text cut' | 'scrolls sideways without a cue' | 'cut when printed';
  /** Tag, test id, classes and the start of its text, so the failure names the element. */
  readonly element: string;
  /** How many CSS pixels of content do not fit. */
  readonly by: number;
}

export interface LayoutOptions {
  /** Selectors of elements that clip on purpose; each must carry its whole text in a `title`, or its clipping is still a problem. */
  readonly clipAllowed?: readonly string[];
  /** The page is printed (print media emulated): a box that scrolls sideways is cut on paper. */
  readonly print?: boolean;
}

/**
 * Every layout problem on the page now; `[]` when none. Takes the options,
 * or (as before) the `clipAllowed` list alone.
 */
export function findLayoutProblems(options: LayoutOptions | readonly string[] = {}): LayoutProblem[] {
  const { clipAllowed = [], print = false } = Array.isArray(options) ? { clipAllowed: options as readonly string[] } : (options as LayoutOptions);
  // Form controls scroll their own text; replaced and graphic elements have no text box to overflow.
  const SKIP = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'PROGRESS', 'METER', 'SVG', 'CANVAS', 'IMG', 'VIDEO', 'IFRAME', 'BR', 'SCRIPT', 'STYLE']);
  // Sub-pixel layout rounds scrollWidth up; a pixel is not a visible overflow.
  const TOLERANCE = 1;
  const describe = (el: Element): string => {
    const id = el.getAttribute('data-testid');
    const cls = typeof el.className === 'string' ? el.className.split(/\s+/).filter((c) => c && !c.startsWith('svelte-')).join('.') : '';
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return `<${el.tagName.toLowerCase()}${id ? ` data-testid="${id}"` : ''}${cls ? ` class="${cls}"` : ''}> "${text}"`;
  };
  const problems: LayoutProblem[] = [];
  const root = document.scrollingElement ?? document.documentElement;
  if (root.scrollWidth > root.clientWidth + TOLERANCE) problems.push({ kind: 'page overflows', element: '<html>', by: root.scrollWidth - root.clientWidth });

  for (const el of document.body.querySelectorAll<HTMLElement>('*')) {
    if (SKIP.has(el.tagName.toUpperCase()) || el.closest('svg')) continue;
    // Inside a closed <details> or display: none: nothing a reader sees.
    if (!el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true })) continue;
    const style = getComputedStyle(el);
    if (style.display === 'inline' || style.display === 'contents' || style.display === 'none') continue;
    const rect = el.getBoundingClientRect();
    // Not rendered, or hidden on purpose (the visually-hidden pattern is a 1 px clipped box).
    if (rect.width <= 1 || rect.height <= 1 || style.visibility === 'hidden') continue;
    const over = el.scrollWidth - el.clientWidth;
    if (over <= TOLERANCE) continue;
    const x = style.overflowX;
    if (x === 'auto' || x === 'scroll') {
      if (print) problems.push({ kind: 'cut when printed', element: describe(el), by: over });
      else if (el.closest('[data-scroll-cue]')?.getAttribute('data-scroll-cue') !== 'shown') problems.push({ kind: 'scrolls sideways without a cue', element: describe(el), by: over });
      continue;
    }
    if (x === 'hidden' || x === 'clip' || style.textOverflow === 'ellipsis') {
      if (el.title.trim() !== '' && clipAllowed.some((s) => el.matches(s))) continue;
      problems.push({ kind: 'text clipped', element: describe(el), by: over });
    }
    else problems.push({ kind: 'overflows its box', element: describe(el), by: over });
  }

  // A chart's text outside its picture is cut off (an SVG clips what lies outside its box).
  for (const svg of document.body.querySelectorAll('svg')) {
    if (svg.parentElement?.closest('svg') || !svg.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true })) continue;
    const box = svg.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue;
    for (const text of svg.querySelectorAll('text')) {
      const r = text.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const by = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom);
      if (by > TOLERANCE) problems.push({ kind: 'chart text cut', element: `${describe(svg)} text "${(text.textContent ?? '').trim().slice(0, 60)}"`, by });
    }
  }
  return problems;
}
