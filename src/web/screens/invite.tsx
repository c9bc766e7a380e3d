// /invite?token=: joining a workspace with the link an owner or admin gave. Someone signed in as
// the invited email accepts; someone signed out signs in as it and accepts, or creates that
// account with the link. Anyone signed in as another email is told so and may sign out.
import { useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import {
  useAcceptInvitation,
  useInvitation,
  useRegister,
  useSignInAndAccept,
  useSignOutForInvitation,
} from '../api/account.ts';
import { asApiError, tooManyAttemptsMessage } from '../api/errors.ts';
import { rememberWorkspace, useSession } from '../api/session.ts';
import type { Session } from '../api/types.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert, LoadError, Loading } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { CurrentPasswordField, NewPasswordFields, useNewPassword } from '../components/password-fields.tsx';
import { PublicFrame } from '../components/shell.tsx';
import { useDocumentTitle } from '../lib/hooks.ts';
import { roleName } from '../lib/format.ts';
import { MIN_PASSWORD } from '../lib/passwords.ts';

interface Invited {
  workspaceName: string;
  email: string;
  role: Session['workspaces'][number]['role'];
}

export function Invite() {
  useDocumentTitle('Join a workspace');
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const invitation = useInvitation(token);
  const session = useSession();

  if (!token || invitation.isError) {
    const gone = !token || asApiError(invitation.error).status === 404;
    return (
      <PublicFrame>
        <h1>Join a workspace</h1>
        {gone ? (
          <div role="alert" className="notice notice-error">
            {token
              ? asApiError(invitation.error).message
              : 'This address has no invitation token. Open the whole link you were given, or ask for a new one.'}
          </div>
        ) : (
          <LoadError error={invitation.error} retry={() => invitation.refetch()} what="the invitation" />
        )}
        <p>
          <Link href="/login">Go to sign in</Link>
        </p>
      </PublicFrame>
    );
  }
  if (invitation.isPending || session.isPending) {
    return (
      <PublicFrame>
        <Loading label="Opening the invitation…" />
      </PublicFrame>
    );
  }
  const invited = invitation.data;
  const signedIn = session.isSuccess ? session.data : null;

  return (
    <PublicFrame>
      <h1>Join {invited.workspaceName}</h1>
      <p className="lede">
        You are invited to <strong>{invited.workspaceName}</strong> as <strong>{roleName(invited.role)}</strong>, with
        the email <strong>{invited.email}</strong>.
      </p>
      {signedIn ? (
        signedIn.user.email === invited.email ? (
          <Accept token={token} invited={invited} />
        ) : (
          <OtherAccount signedInAs={signedIn.user.email} invited={invited} />
        )
      ) : (
        <>
          <SignInAndAccept token={token} invited={invited} />
          <CreateAccount token={token} invited={invited} />
        </>
      )}
    </PublicFrame>
  );
}

/** After joining (the hooks have read the session again, which now lists the workspace): open its links. */
function useJoined() {
  const [, navigate] = useLocation();
  return (workspaceId: string) => {
    rememberWorkspace(workspaceId);
    navigate(`/w/${encodeURIComponent(workspaceId)}/links`, { replace: true });
  };
}

function Accept({ token, invited }: { token: string; invited: Invited }) {
  const joined = useJoined();
  const [problem, setProblem] = useState<string | null>(null);
  const accept = useAcceptInvitation(token, {
    onSuccess: (answer) => joined(answer.data.id),
    onError: (err) => setProblem(asApiError(err).message),
  });
  return (
    <div className="stack">
      <FormAlert message={problem} />
      <p>You are signed in as {invited.email}.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setProblem(null);
          accept.mutate();
        }}
      >
        <SubmitButton pending={accept.isPending} className="button-block">
          Join {invited.workspaceName}
        </SubmitButton>
      </form>
    </div>
  );
}

function OtherAccount({ signedInAs, invited }: { signedInAs: string; invited: Invited }) {
  const signOut = useSignOutForInvitation();
  return (
    <div className="stack">
      <div role="alert" className="notice notice-error">
        This invitation is for {invited.email}, and you are signed in as {signedInAs}. Sign out, then sign in as{' '}
        {invited.email} (or create that account) to join.
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          signOut.mutate();
        }}
      >
        <SubmitButton pending={signOut.isPending}>Sign out</SubmitButton>
      </form>
    </div>
  );
}

function SignInAndAccept({ token, invited }: { token: string; invited: Invited }) {
  const joined = useJoined();
  const [password, setPassword] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'password'>({ password: 'password' }, formRef);
  const join = useSignInAndAccept(token, invited.email, {
    onSuccess: (answer) => joined(answer.data.id),
    onError: (err) => {
      const e = asApiError(err);
      errors.show(
        e.status === 429 ? new Error(tooManyAttemptsMessage(e)) : e.status === 401 ? new Error(e.message) : e,
      );
      setPassword('');
    },
  });
  return (
    <JoinPanel
      headingId="sign-in-heading"
      title="I have an account"
      formRef={formRef}
      problem={errors.form}
      onSubmit={() => {
        if (errors.check({ password: password ? undefined : 'Enter your password.' })) join.mutate(password);
      }}
      pending={join.isPending}
      submitLabel="Sign in and join"
    >
      <TextField label="Email" type="email" name="email" autoComplete="username" value={invited.email} readOnly />
      <CurrentPasswordField value={password} onChange={setPassword} error={errors.fields.password} />
    </JoinPanel>
  );
}

function CreateAccount({ token, invited }: { token: string; invited: Invited }) {
  const joined = useJoined();
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'password' | 'confirm'>({ password: 'password' }, formRef);
  const newPassword = useNewPassword(errors.fields);
  const register = useRegister(token, {
    // A new account belongs to the one workspace it joined.
    onSuccess: (session) => joined(session.workspaces[0].id),
    onError: (err) => errors.show(err),
  });
  return (
    <JoinPanel
      headingId="create-heading"
      title="I am new here"
      intro={`Create the account of ${invited.email} with a password of at least ${MIN_PASSWORD} characters.`}
      formRef={formRef}
      problem={errors.form}
      onSubmit={() => {
        if (errors.check(newPassword.problems())) register.mutate(newPassword.password);
      }}
      pending={register.isPending}
      submitLabel="Create account and join"
    >
      <NewPasswordFields label="New password" input={newPassword.input} />
    </JoinPanel>
  );
}

/** One way in for someone signed out: a panel with its heading and a form the screen checks itself. */
function JoinPanel(props: {
  headingId: string;
  title: string;
  intro?: string;
  formRef: RefObject<HTMLFormElement | null>;
  problem: string | null;
  onSubmit: () => void;
  pending: boolean;
  submitLabel: string;
  children: ReactNode;
}) {
  return (
    <section className="panel" aria-labelledby={props.headingId}>
      <h2 id={props.headingId}>{props.title}</h2>
      {props.intro ? <p className="muted">{props.intro}</p> : null}
      <form
        ref={props.formRef}
        noValidate
        className="stack"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          props.onSubmit();
        }}
      >
        <FormAlert message={props.problem} />
        {props.children}
        <SubmitButton pending={props.pending} className="button-block">
          {props.submitLabel}
        </SubmitButton>
      </form>
    </section>
  );
}
