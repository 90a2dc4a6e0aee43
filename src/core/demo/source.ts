/** The source the demo benchmark, and every benchmark its generator draws, is stored with (a module of its own: pages import it without the generator). */
export const DEMO_SOURCE = 'neuroeval-demo';
