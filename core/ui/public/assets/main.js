import { render } from 'preact';
import { html } from './html.js';
import { App } from './app.js';
import { interceptLinks } from './router.js';

const root = document.getElementById('app');
root.textContent = '';
interceptLinks(document.body);
render(html`<${App} />`, root);
