// General settings: whether the workspace requires its members to use a second factor. OWNER
// and ADMIN see who has none yet; an OWNER turns it on (after a question naming them) or off.
// The API refuses an OWNER without a factor of their own (409): the screen says so first.
import { type ReactNode, useState } from 'react';
import { Link } from 'wouter';
import { asApiError } from '../../api/errors.ts';
import { useSecondFactorRequirement, useSetSecondFactorRequirement } from '../../api/second-factors.ts';
import { useSignedIn } from '../../api/session.ts';
import type { Role } from '../../api/types.ts';
import { useConfirm } from '../../components/confirm.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { roleName } from '../../lib/format.ts';

export function SecondFactorRequirement({ workspaceId, role }: { workspaceId: string; role: Role }) {
  const session = useSignedIn();
  const requirement = useSecondFactorRequirement(workspaceId);
  const [ask, dialog] = useConfirm();
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const change = useSetSecondFactorRequirement(workspaceId, {
    onSuccess: (answer) => {
      setError(null);
      setSaved(
        answer.data.requireSecondFactor
          ? 'Members must now use a second factor.'
          : 'A second factor is now up to each member.',
      );
    },
    onError: (err) => setError(asApiError(err).message),
  });
  const owner = role === 'OWNER';

  let body: ReactNode;
  if (requirement.isPending) body = <Loading label="Loading the requirement…" />;
  else if (requirement.isError)
    body = <LoadError error={requirement.error} retry={() => requirement.refetch()} what="the requirement" />;
  else {
    const { requireSecondFactor: on, membersWithoutFactor: without } = requirement.data;
    const turnOn = async () => {
      setSaved(null);
      const ok = await ask({
        title: 'Require a second factor?',
        body:
          without.length === 0 ? (
            <p>Every member already has a second factor.</p>
          ) : (
            <>
              <p>
                {without.length === 1 ? '1 member has' : `${without.length} members have`} no second factor yet. At
                their next request they will be led to set one up and can do nothing else until then:
              </p>
              <ul className="plain-list">
                {without.map((m) => (
                  <li key={m.userId}>
                    {m.email} ({roleName(m.role)})
                  </li>
                ))}
              </ul>
            </>
          ),
        confirmLabel: 'Require a second factor',
      });
      if (ok) change.mutate(true);
    };
    body = (
      <>
        {saved ? <StatusNotice>{saved}</StatusNotice> : null}
        <FormAlert message={error} />
        <p>
          {on
            ? 'Members must use a second factor (an authenticator app) to sign in. API keys are not affected.'
            : 'Each member chooses whether to use a second factor.'}
        </p>
        <p className="muted">
          {without.length === 0
            ? 'Every member has a second factor.'
            : `Without a second factor: ${without.map((m) => m.email).join(', ')}.`}
        </p>
        {owner ? (
          on ? (
            <button
              type="button"
              className="button"
              disabled={change.isPending}
              onClick={() => {
                setSaved(null);
                change.mutate(false);
              }}
            >
              Stop requiring a second factor
            </button>
          ) : session.secondFactor.enabled ? (
            <button type="button" className="button button-primary" disabled={change.isPending} onClick={turnOn}>
              Require a second factor
            </button>
          ) : (
            <p className="field-hint">
              To require it, first set up your own authenticator app in <Link href="/account">Account</Link>.
            </p>
          )
        ) : (
          <p className="field-hint">Only an owner changes this.</p>
        )}
        {dialog}
      </>
    );
  }
  return (
    <section className="panel" aria-labelledby="second-factor-requirement-heading">
      <h2 id="second-factor-requirement-heading">Two-step sign-in</h2>
      {body}
    </section>
  );
}
