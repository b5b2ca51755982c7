// What every page shares: htm bound to Preact, and small labelled pieces.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);

export function ErrorNote({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${error.message || String(error)}</p>`;
}

export function Field({ id, label, children }) {
  return html`<div class="field"><label for=${id}>${label}</label>${children}</div>`;
}

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');
