/** Svelte 5 in runes mode everywhere: one reactivity model, no legacy stores. */
export default {
  compilerOptions: { runes: true },
};
