// Members: who belongs to the workspace and with which role; adding someone (a set-up link for
// a person without a password), changing roles (OWNER), removing (OWNER and ADMIN).
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { api } from '../../api/client.ts';
import { unwrap } from '../../api/errors.ts';
import { keys } from '../../api/keys.ts';
import { queryClient } from '../../api/query-client.ts';
import { can, useMembership, useSignedIn } from '../../api/session.ts';
import { ROLES, type Member, type Role } from '../../api/types.ts';
import { ConfirmedActionButton, SubmitButton } from '../../components/buttons.tsx';
import { useConfirm } from '../../components/confirm.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { formatDate } from '../../lib/dates.ts';
import { roleName } from '../../lib/format.ts';
import { SettingsFrame } from './settings-frame.tsx';

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
  const list = useQuery({
    queryKey: keys.members(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/members', { params: { path: { workspaceId: ws } } }))).data,
  });
  const [ask, dialog] = useConfirm();
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  // The role chosen in a select while its change is on its way (the select shows it meanwhile).
  const [pendingRole, setPendingRole] = useState<Record<string, Role>>({});
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.members(ws) });
  const settleRole = (userId: string) =>
    setPendingRole((p) => {
      const next = { ...p };
      delete next[userId];
      return next;
    });

  const changeRole = useMutation({
    mutationFn: ({ member, role: next }: { member: Member; role: Role }) =>
      unwrap(api.PATCH('/workspaces/{workspaceId}/members/{userId}', { params: { path: { workspaceId: ws, userId: member.userId } }, body: { role: next } })),
    onMutate: ({ member, role: next }) => setPendingRole((p) => ({ ...p, [member.userId]: next })),
    onSuccess: (answer, { member }) => {
      queryClient.setQueryData<Member[]>(keys.members(ws), (list) => list?.map((m) => (m.userId === member.userId ? answer.data : m)));
      settleRole(member.userId);
      setNotice({ ok: true, text: `${answer.data.email} is now ${roleName(answer.data.role)}.` });
      // Your own role may have changed what this session may do.
      if (answer.data.userId === me.id) void queryClient.invalidateQueries({ queryKey: keys.session });
    },
    onError: (err, { member }) => {
      settleRole(member.userId);
      setNotice({ ok: false, text: `${member.email}: ${err.message}` });
      void refresh();
    },
  });

  const remove = useMutation({
    mutationFn: (member: Member) => unwrap(api.DELETE('/workspaces/{workspaceId}/members/{userId}', { params: { path: { workspaceId: ws, userId: member.userId } } })),
    onSuccess: (_v, member) => {
      setNotice({ ok: true, text: `${member.email} was removed from the workspace.` });
      void refresh();
    },
    onError: (err) => setNotice({ ok: false, text: err.message }),
  });

  // Only an OWNER removes an OWNER.
  const mayRemove = (m: Member) => can.administer(role) && (m.role !== 'OWNER' || role === 'OWNER');

  return (
    <SettingsFrame workspaceId={ws} title="Members">
      {notice ? notice.ok ? <StatusNotice>{notice.text}</StatusNotice> : <FormAlert message={notice.text} /> : null}
      {can.administer(role) ? <AddMember workspaceId={ws} mayAddOwner={role === 'OWNER'} /> : null}

      <section className="section" aria-labelledby="members-heading">
        <h2 id="members-heading">People in this workspace</h2>
        {list.isPending ? (
          <Loading label="Loading members…" />
        ) : list.isError ? (
          <LoadError error={list.error} retry={() => list.refetch()} what="the members" />
        ) : (
          <div className="table-wrap" role="region" aria-labelledby="members-caption" tabIndex={0}>
            <table className="table table-cards">
              <caption id="members-caption" className="visually-hidden">
                Members
              </caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Password set</th>
                  <th scope="col">Joined</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((m) => (
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
                    <td data-label="Password set">{m.hasPassword ? 'Yes' : <span className="badge badge-neutral">Not yet</span>}</td>
                    <td className="nowrap" data-label="Joined">{formatDate(m.joinedAt)}</td>
                    <td className="cell-actions">
                      {mayRemove(m) ? (
                        <ConfirmedActionButton
                          label="Remove"
                          name={`Remove ${m.email}`}
                          disabled={remove.isPending}
                          ask={ask}
                          question={{ title: `Remove ${m.email}?`, body: 'They lose access to this workspace at once; their API keys here stop working for changes.', confirmLabel: 'Remove' }}
                          onConfirmed={() => remove.mutate(m)}
                        />
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
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

function AddMember({ workspaceId, mayAddOwner }: { workspaceId: string; mayAddOwner: boolean }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('MEMBER');
  const [added, setAdded] = useState<{ email: string; setupUrl: string | null } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);

  const add = useMutation({
    mutationFn: () => unwrap(api.POST('/workspaces/{workspaceId}/members', { params: { path: { workspaceId } }, body: { email: email.trim(), role } })),
    onSuccess: (answer) => {
      setAdded({ email: answer.data.email, setupUrl: answer.setupUrl });
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: keys.members(workspaceId) });
    },
    onError: (err) => errors.show(err),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    if (errors.check({ email: /^\S+@\S+$/.test(email.trim()) ? undefined : 'Enter an email address, such as someone@example.com.' })) add.mutate();
  };

  return (
    <section className="panel" aria-labelledby="add-member-heading">
      <h2 id="add-member-heading">Add member</h2>
      <form ref={formRef} onSubmit={submit} noValidate>
        <FormAlert message={errors.form} />
        <div className="form-row">
          <TextField label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.fields.email} autoComplete="off" className="grow" />
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)} error={errors.fields.role}>
            {ROLES.filter((r) => r !== 'OWNER' || mayAddOwner).map((r) => (
              <option key={r} value={r}>
                {roleName(r)}
              </option>
            ))}
          </SelectField>
          <div className="form-row-action">
            <SubmitButton pending={add.isPending}>Add member</SubmitButton>
          </div>
        </div>
      </form>
      {added ? (
        added.setupUrl ? (
          <div className="secret">
            <StatusNotice>{added.email} was added. Give them this set-up link: it works once, for 24 hours.</StatusNotice>
            <TextField label="Set-up link" value={added.setupUrl} readOnly onFocus={(e) => e.target.select()} />
            <CopyButton text={added.setupUrl} label="Copy link" visible="Copy link" />
          </div>
        ) : (
          <StatusNotice>{added.email} was added and can sign in with their password.</StatusNotice>
        )
      ) : null}
    </section>
  );
}
