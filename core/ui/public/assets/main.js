import { render } from 'preact';
import { html } from './html.js';
import { App } from './app.js';
import { interceptLinks } from './router.js';

const root = document.getElementById('app');
if (!root) throw new Error('index.html has no #app element to render the UI into');
root.textContent = '';
interceptLinks(document.body);
render(html`<${App} />`, root);
