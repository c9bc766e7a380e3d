// The Account screen's "Link single sign-on": how a person who already belongs to a workspace
// starts signing in through another workspace's provider. The provider must confirm this
// account's email; the service refuses a sign-in through it until then (openapi/dashboard.yaml,
// Single sign-on).
import { useState } from 'react';
import { useLinkSso } from '../api/sso.ts';
import { FormAlert } from '../components/feedback.tsx';

export function LinkSso({ email }: { email: string }) {
  const [error, setError] = useState<string | null>(null);
  const link = useLinkSso({ onError: (err) => setError(err.message) });
  return (
    <section className="panel panel-narrow" aria-labelledby="sso-link-heading">
      <h2 id="sso-link-heading">Single sign-on</h2>
      <p className="muted">
        If your organisation signs in to its workspace with single sign-on, link it to this account: you sign in at your
        identity provider as <strong>{email}</strong>, and from then on can sign in either way.
      </p>
      <FormAlert message={error} />
      <div>
        <button
          type="button"
          className="button"
          disabled={link.isPending}
          aria-busy={link.isPending || undefined}
          onClick={() => {
            setError(null);
            link.mutate();
          }}
        >
          Link single sign-on
        </button>
      </div>
    </section>
  );
}
