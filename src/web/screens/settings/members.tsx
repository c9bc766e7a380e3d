// Members: who belongs to the workspace and with which role; inviting someone (a link they open
// to join, signed in as the invited email or creating that account) and the invitations still
// waiting (OWNER and ADMIN), changing roles (OWNER), removing (OWNER and ADMIN).
import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import {
  useInvitations,
  useInviteMember,
  useMembers,
  useRemoveMember,
  useRevokeInvitation,
  useSetRole,
} from '../../api/members.ts';
import { can, useMembership, useSignedIn } from '../../api/session.ts';
import { ROLES, type Member, type Role } from '../../api/types.ts';
import { useConfirm } from '../../components/confirm.tsx';
import { ConfirmedWriteButton } from '../../components/row-buttons.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { ACTIONS } from '../../components/data-table.tsx';
import { StatusNotice } from '../../components/feedback.tsx';
import { OutcomeNotice, useOutcome } from '../../components/outcome-notice.tsx';
import { SelectField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { RowFormPanel } from '../../components/row-form-panel.tsx';
import { TableSection } from '../../components/table-section.tsx';
import { formatDate } from '../../lib/dates.ts';
import { roleName } from '../../lib/format.ts';
import { SettingsFrame } from './settings-frame.tsx';
import { boundText } from '../../components/text-inputs.ts';

const ROLE_HELP: Record<Role, string> = {
  OWNER: 'everything, including roles and owners',
  ADMIN: 'everything but owners and roles',
  MEMBER: 'links, tags, QR codes and their own API keys',
  ANALYST: 'reads everything, changes nothing',
};

export function Members() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const me = useSignedIn().user;
  const list = useMembers(ws);
  const [ask, dialog] = useConfirm();
  const notice = useOutcome();
  // The role chosen in a select while its change is on its way (the select shows it meanwhile).
  const [pendingRole, setPendingRole] = useState<Record<string, Role>>({});
  const settleRole = (userId: string) =>
    setPendingRole((p) => {
      const next = { ...p };
      delete next[userId];
      return next;
    });

  const changeRole = useSetRole(ws, me.id, {
    onMutate: ({ member, role: next }) => setPendingRole((p) => ({ ...p, [member.userId]: next })),
    onSuccess: (answer, { member }) => {
      settleRole(member.userId);
      notice.done(`${answer.data.email} is now ${roleName(answer.data.role)}.`);
    },
    onError: (err, { member }) => {
      settleRole(member.userId);
      notice.failed(`${member.email}: ${err.message}`);
    },
  });

  const remove = useRemoveMember(ws, {
    onSuccess: (_v, member) => notice.done(`${member.email} was removed from the workspace.`),
    onError: (err) => notice.failed(err.message),
  });

  // Only an OWNER removes an OWNER.
  const mayRemove = (m: Member) => can.administer(role) && (m.role !== 'OWNER' || role === 'OWNER');

  return (
    <SettingsFrame workspaceId={ws} title="Members">
      <OutcomeNotice outcome={notice.outcome} />
      {can.administer(role) ? <InviteMember workspaceId={ws} mayInviteOwner={role === 'OWNER'} /> : null}

      <TableSection
        id="members"
        heading="People in this workspace"
        noun="members"
        read={list}
        caption="Members"
        cards
        headers={['Email', 'Role', 'Joined', ACTIONS]}
      >
        {(m) => (
          <tr key={m.userId}>
            <td data-label="Email">
              {m.email}
              {m.userId === me.id ? <span className="muted"> (you)</span> : null}
            </td>
            <td data-label="Role">
              {can.changeRoles(role) ? (
                <select
                  aria-label={`Role for ${m.email}`}
                  value={pendingRole[m.userId] ?? m.role}
                  disabled={changeRole.isPending}
                  onChange={(e) => changeRole.mutate({ member: m, role: e.target.value as Role })}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {roleName(r)}
                    </option>
                  ))}
                </select>
              ) : (
                roleName(m.role)
              )}
            </td>
            <td className="nowrap" data-label="Joined">
              {formatDate(m.joinedAt)}
            </td>
            <td className="cell-actions">
              {mayRemove(m) ? (
                <ConfirmedWriteButton label="Remove" name={`Remove ${m.email}`} ask={ask} write={remove} row={m}>
                  They lose access to this workspace at once; their API keys here stop working for changes.
                </ConfirmedWriteButton>
              ) : null}
            </td>
          </tr>
        )}
      </TableSection>
      {can.administer(role) ? (
        <PendingInvitations workspaceId={ws} mayRevokeOwner={role === 'OWNER'} ask={ask} notice={notice} />
      ) : null}
      <section className="section" aria-labelledby="roles-heading">
        <h2 id="roles-heading">What each role may do</h2>
        <ul className="plain-list">
          {ROLES.map((r) => (
            <li key={r}>
              <strong>{roleName(r)}</strong>: {ROLE_HELP[r]}
            </li>
          ))}
        </ul>
      </section>
      {dialog}
    </SettingsFrame>
  );
}

type Field = 'email' | 'role';
const FIELDS: Record<string, Field> = { email: 'email', role: 'role' };

function InviteMember({ workspaceId, mayInviteOwner }: { workspaceId: string; mayInviteOwner: boolean }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('MEMBER');
  // A mailed invitation has no link to show: it went to the invited email only.
  const [sent, setSent] = useState<{ email: string; inviteUrl: string | undefined } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);

  const invite = useInviteMember(workspaceId, {
    onSuccess: (answer) => {
      setSent({ email: answer.data.email, inviteUrl: answer.inviteUrl });
      setEmail('');
    },
    onError: (err) => errors.show(err),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSent(null);
    if (
      errors.check({
        email: /^\S+@\S+$/.test(email.trim()) ? undefined : 'Enter an email address, such as someone@example.com.',
      })
    )
      invite.mutate({ email: email.trim(), role });
  };

  return (
    <RowFormPanel
      headingId="invite-heading"
      heading="Invite someone"
      intro={
        <p className="muted">
          They join when they open the invitation's link (emailed to them, or given to you here when this service sends
          no email) and sign in as that email, or create its account.
        </p>
      }
      formRef={formRef}
      onSubmit={submit}
      formError={errors.form}
      pending={invite.isPending}
      submit="Invite"
      result={
        sent && !sent.inviteUrl ? (
          <StatusNotice>
            {sent.email} is invited: the invitation link was emailed to them. It works once, for 7 days, and only for{' '}
            {sent.email}.
          </StatusNotice>
        ) : sent?.inviteUrl ? (
          <div className="secret">
            <StatusNotice>
              {sent.email} is invited. Give them this link, and nobody else: it works once, for 7 days, and only for{' '}
              {sent.email}.
            </StatusNotice>
            <TextField label="Invitation link" value={sent.inviteUrl} readOnly onFocus={(e) => e.target.select()} />
            <CopyButton text={sent.inviteUrl} label="Copy link" visible="Copy link" />
          </div>
        ) : null
      }
    >
      <TextField
        label="Email"
        type="email"
        {...boundText(email, setEmail)}
        error={errors.fields.email}
        autoComplete="off"
        className="grow"
      />
      <SelectField
        label="Role"
        value={role}
        onChange={(e) => setRole(e.target.value as Role)}
        error={errors.fields.role}
      >
        {ROLES.filter((r) => r !== 'OWNER' || mayInviteOwner).map((r) => (
          <option key={r} value={r}>
            {roleName(r)}
          </option>
        ))}
      </SelectField>
    </RowFormPanel>
  );
}

function PendingInvitations({
  workspaceId,
  mayRevokeOwner,
  ask,
  notice,
}: {
  workspaceId: string;
  mayRevokeOwner: boolean;
  ask: ReturnType<typeof useConfirm>[0];
  notice: ReturnType<typeof useOutcome>;
}) {
  const list = useInvitations(workspaceId);
  const revoke = useRevokeInvitation(workspaceId, {
    onSuccess: (_v, invitation) =>
      notice.done(`The invitation of ${invitation.email} was revoked; its link no longer works.`),
    onError: (err) => notice.failed(err.message),
  });

  return (
    <TableSection
      id="invitations"
      heading="Waiting invitations"
      noun="invitations"
      read={list}
      empty={<p className="muted">No invitation is waiting.</p>}
      caption="Waiting invitations"
      cards
      headers={['Email', 'Role', 'Invited by', 'Link works until', ACTIONS]}
    >
      {(i) => (
        <tr key={i.id}>
          <td data-label="Email">{i.email}</td>
          <td data-label="Role">{roleName(i.role)}</td>
          <td data-label="Invited by">{i.invitedBy?.email ?? <span className="muted">Someone no longer here</span>}</td>
          <td className="nowrap" data-label="Link works until">
            {formatDate(i.expiresAt)}
          </td>
          <td className="cell-actions">
            {i.role !== 'OWNER' || mayRevokeOwner ? (
              <ConfirmedWriteButton
                label="Revoke"
                name={`Revoke the invitation of ${i.email}`}
                ask={ask}
                write={revoke}
                row={i}
              >
                Its link stops working at once. You can invite them again later.
              </ConfirmedWriteButton>
            ) : null}
          </td>
        </tr>
      )}
    </TableSection>
  );
}
