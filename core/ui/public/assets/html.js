// htm turns tagged templates into Preact vnodes at run time: JSX-like markup with no build step and no eval.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
