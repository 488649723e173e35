import pkg from '../package.json' with {type: 'json'};

/** infertop's own version, from package.json (inlined by the bundler). */
export const VERSION: string = pkg.version;
