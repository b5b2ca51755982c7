// Sign-in: email and password (set with `hedgerow user password --email E`).
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { ErrorNote, Field, html } from './ui.js';

export function SignIn({ onSignedIn }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api('/api/login', { method: 'POST', body: { email: form.get('email'), password: form.get('password') } }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`
    <main id="main" class="signin">
      <h1>Sign in to hedgerow</h1>
      <form onSubmit=${submit}>
        <${Field} id="email" label="Email"><input id="email" name="email" type="email" autocomplete="username" required /><//>
        <${Field} id="password" label="Password"><input id="password" name="password" type="password" autocomplete="current-password" required /><//>
        <${ErrorNote} error=${error} />
        <button type="submit" disabled=${busy}>Sign in</button>
      </form>
    </main>`;
}
