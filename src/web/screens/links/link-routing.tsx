// A link's routing: the rules in order, the A/B split, query forwarding, indexing and the click
// id, saved as one document (PUT) whose refusal shows next to the input it names, the form kept
// as it was; beside it "Try a visit" on the saved routing. An ANALYST reads and tries.
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useLink, useWorkspace } from '../../api/queries.ts';
import { useRouting, useSaveRouting } from '../../api/routing.ts';
import { can, useMembership } from '../../api/session.ts';
import type { Role, Routing } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { CheckboxField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { FormSection } from '../../components/form-section.tsx';
import { PageHeader } from '../../components/page.tsx';
import { ReadOnlyNotice } from '../../components/read-only-notice.tsx';
import { boundText } from '../../components/text-inputs.ts';
import { LinkTrail } from './link-trail.tsx';
import { formFromRouting, routingBody, routingFieldNames, type RoutingForm } from './routing-form.ts';
import { RuleList } from './routing-rules.tsx';
import { SplitEditor } from './routing-split.tsx';
import { TryVisit } from './routing-trial.tsx';

export default function LinkRouting() {
  const { workspaceId: ws, linkId } = useParams<{ workspaceId: string; linkId: string }>();
  const workspace = useWorkspace(ws);
  const link = useLink(ws, linkId);
  const routing = useRouting(ws, linkId);
  const slug = link.data?.slug;
  const header = (
    <PageHeader
      title={slug ? `Routing for ${slug}` : 'Routing'}
      eyebrow={<LinkTrail ws={ws} linkId={linkId} slug={slug} />}
    >
      {link.data ? <p className="muted short-url">{link.data.shortUrl}</p> : null}
    </PageHeader>
  );
  const reads = [workspace, link, routing];
  const failed = reads.find((r) => r.isError);
  if (failed) {
    return (
      <>
        {header}
        <LoadError
          error={failed.error}
          retry={() => {
            for (const r of reads) r.refetch();
          }}
          what="the routing"
        />
      </>
    );
  }
  if (!workspace.data || !link.data || !routing.data) {
    return (
      <>
        {header}
        <Loading label="Loading the routing…" />
      </>
    );
  }
  return (
    <>
      {header}
      <div className="routing-editor">
        <RoutingEditorForm
          ws={ws}
          linkId={linkId}
          linkUrl={link.data.originalUrl}
          role={workspace.data.role}
          saved={routing.data}
        />
        <TryVisit ws={ws} linkId={linkId} saved={routing.data} />
      </div>
    </>
  );
}

function RoutingEditorForm({
  ws,
  linkId,
  linkUrl,
  role: workspaceRole,
  saved,
}: {
  ws: string;
  linkId: string;
  linkUrl: string;
  role: Role;
  saved: Routing;
}) {
  const role = useMembership(ws)?.role ?? workspaceRole;
  const editable = can.editLinks(role);
  // The form is made once from what was read; a failed save leaves it exactly as it was.
  const [form, setForm] = useState<RoutingForm>(() => formFromRouting(saved));
  const [done, setDone] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const fieldOf = useMemo(() => routingFieldNames(form), [form]);
  const errors = useFormErrors<string>(fieldOf, formRef);
  const save = useSaveRouting(ws, linkId, {
    onSuccess: (answer) => {
      setForm(formFromRouting(answer.data));
      errors.clear();
      setDone(true);
    },
    onError: (err) => errors.show(err),
  });
  const set = <K extends keyof RoutingForm>(key: K, value: RoutingForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setDone(false);
  };
  // Errors name inputs by position: adding, moving or removing would point them at other inputs.
  const restructure = <K extends 'rules' | 'split'>(key: K, value: RoutingForm[K]) => {
    const sameShape =
      key === 'rules'
        ? (value as RoutingForm['rules']).map((r) => `${r.key}:${r.conditions.length}`).join() ===
          form.rules.map((r) => `${r.key}:${r.conditions.length}`).join()
        : (value as RoutingForm['split'])?.variants.length === form.split?.variants.length;
    if (!sameShape) errors.clear();
    set(key, value);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    errors.clear();
    save.mutate(routingBody(form));
  };
  const e = errors.fields;

  return (
    <form ref={formRef} className="routing-form" onSubmit={submit} noValidate aria-label="Routing">
      {done ? <StatusNotice>Routing saved. It applies from the next click.</StatusNotice> : null}
      <FormAlert message={errors.form} />
      {!editable ? <ReadOnlyNotice role={role} what="routing" things="links" /> : null}
      <p className="muted">
        The first rule whose conditions all match sends the visitor to its URL; else the split chooses a variant; else
        the visitor goes to the link's own URL, <span className="url-inline">{linkUrl}</span>.
      </p>

      <FormSection legend="Rules" editable={editable}>
        <RuleList rules={form.rules} onChange={(rules) => restructure('rules', rules)} errors={e} editable={editable} />
      </FormSection>

      <FormSection legend="A/B split" editable={editable}>
        <SplitEditor
          split={form.split}
          onChange={(split) => restructure('split', split)}
          errors={e}
          editable={editable}
        />
      </FormSection>

      <FormSection legend="On every visit" editable={editable}>
        <CheckboxField
          label="Forward the visit's query to the destination"
          hint="On a name both have, the destination's own value wins."
          checked={form.forwardQuery}
          onChange={(ev) => set('forwardQuery', ev.target.checked)}
        />
        <CheckboxField
          label="Let search engines index the short link"
          hint="Otherwise redirects carry X-Robots-Tag: noindex and robots.txt disallows the link."
          checked={form.indexable}
          onChange={(ev) => set('indexable', ev.target.checked)}
        />
        <TextField
          label="Click id parameter"
          name="clickIdParam"
          {...boundText(form.clickIdParam, (v) => set('clickIdParam', v))}
          error={e.clickIdParam}
          hint="When set, each click's destination gets this parameter with the click's id, for conversions. Empty for none."
          placeholder="sl_click"
          maxLength={64}
          autoCapitalize="none"
          spellCheck={false}
        />
      </FormSection>

      {editable ? (
        <div className="form-actions">
          <SubmitButton pending={save.isPending}>Save routing</SubmitButton>
        </div>
      ) : null}
    </form>
  );
}
